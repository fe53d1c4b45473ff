// Every recipe of this folder, started the way its runtime runs it, in ONE place: the smoke tests
// (test/*.test.ts) and the webhook doctor's test (tests/webhook-doctor) start them from here.
import type { ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { EdgeRuntime, runServer } from "edge-runtime";
import { Miniflare } from "miniflare";
import { spawnGroup } from "../../../scripts/processes.mjs";
import * as nodeRoute from "../src/app/api/webhooks/paykit/route.js";
import { createExpressApp } from "../src/express.js";
import { createFastifyApp } from "../src/fastify.js";
import { serveHonoOnNode } from "../src/hono-node.js";
import { createNestApp } from "../src/nest.js";
import { createReceiver, type ReceiverConfig } from "../src/receiver.js";
import { bundle } from "./bundle.js";

/** What a recipe is started with: its config (with the shared store) and where that store lives. */
export interface SharedConfig extends ReceiverConfig {
  /** The Redis every instance shares, for recipes that build their store from PAYKIT_REDIS_URL. */
  redisUrl?: string;
  /** The same Redis over Upstash's REST protocol, for Workers and the Edge runtime. */
  redisRestUrl?: string;
  redisRestToken?: string;
}

/** A running recipe: its base URL and how to stop it. */
export interface RunningRecipe {
  url: string;
  stop(): Promise<void>;
}

/** A recipe: its name and how to start one instance of it. */
export interface Recipe {
  name: string;
  start(config: SharedConfig): Promise<RunningRecipe>;
}

const folder = fileURLToPath(new URL("..", import.meta.url));
// the binary itself, not node_modules/.bin/bun (a shell wrapper that would outlive a kill)
const bunBin = fileURLToPath(new URL("../node_modules/bun/bin/bun.exe", import.meta.url));
const denoBin = fileURLToPath(new URL("../node_modules/deno/deno", import.meta.url));

/** The PAYKIT_* variables of a config, as a deployment sets them. */
export function envOf(config: SharedConfig): Record<string, string> {
  return {
    PAYKIT_PUBLIC_KEY: config.publicKey,
    PAYKIT_SECRET_KEY: config.secretKey,
    PAYKIT_BASE_URL: config.baseUrl,
    PAYKIT_WEBHOOK_SECRET: config.webhookSecret,
    ...(config.redisUrl ? { PAYKIT_REDIS_URL: config.redisUrl } : {}),
    ...(config.redisRestUrl && config.redisRestToken
      ? { PAYKIT_REDIS_REST_URL: config.redisRestUrl, PAYKIT_REDIS_REST_TOKEN: config.redisRestToken }
      : {}),
  };
}

/** Polls `check` until it returns a value (not undefined), for at most `ms`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A free loopback port (for runtimes that need one up front: Bun). */
async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A recipe run by another runtime's binary as a merchant runs it, on a free port it reads from PORT. */
async function runtimeServer(
  config: ReceiverConfig,
  runtime: string,
  bin: string,
  args: string[],
): Promise<RunningRecipe> {
  const port = await freePort();
  const child: ChildProcess = spawnGroup(bin, args, {
    cwd: folder,
    stdio: "ignore",
    env: { PATH: process.env.PATH, PORT: String(port), ...envOf(config) },
  });
  const url = `http://127.0.0.1:${port}`;
  // any HTTP answer means it is serving (a GET on the webhook route is a 404)
  await waitFor(async () => (await fetch(url)).status, `${runtime} to listen`, 20_000);
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function nodeServer(server: { close(cb: () => void): unknown; address(): unknown }): RunningRecipe {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every recipe. */
export const RECIPES: readonly Recipe[] = [
  {
    name: "Express (express.raw on the route)",
    async start(config) {
      const server = createExpressApp(createReceiver(config)).listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      return nodeServer(server);
    },
  },
  {
    name: "Fastify (addContentTypeParser, parseAs buffer)",
    async start(config) {
      const app = createFastifyApp(createReceiver(config));
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      return { url, stop: () => app.close() };
    },
  },
  {
    name: "Hono on Node (@hono/node-server)",
    async start(config) {
      return nodeServer(await serveHonoOnNode(createReceiver(config)));
    },
  },
  {
    name: "NestJS (rawBody: true)",
    async start(config) {
      const app = await createNestApp(createReceiver(config));
      await app.listen(0, "127.0.0.1");
      const { port } = app.getHttpServer().address() as { port: number };
      return { url: `http://127.0.0.1:${port}`, stop: () => app.close() };
    },
  },
  {
    name: "Hono on Bun",
    start: (config) => runtimeServer(config, "Bun", bunBin, ["run", "src/bun.ts"]),
  },
  {
    name: "Hono on Deno",
    start: (config) =>
      runtimeServer(config, "Deno", denoBin, [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-net",
        "--allow-env",
        "--allow-read",
        "src/deno.ts",
      ]),
  },
  {
    name: "Hono on Workers (Miniflare, workerd)",
    async start(config) {
      const script = await bundle("src/worker.ts", { format: "esm" });
      const mf = new Miniflare({
        modules: true,
        script,
        compatibilityDate: "2025-09-01",
        host: "127.0.0.1",
        port: 0,
        bindings: envOf(config),
      });
      const url = await mf.ready;
      return { url: url.origin, stop: () => mf.dispose() };
    },
  },
  {
    name: "Next.js route handler, runtime = nodejs",
    async start(config) {
      Object.assign(process.env, envOf(config));
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: (request) => nodeRoute.POST(request), port: 0, hostname: "127.0.0.1" }, () =>
          resolve(s),
        );
      });
      return nodeServer(server);
    },
  },
  {
    name: "Next.js route handler, runtime = edge (edge-runtime)",
    async start(config) {
      const code = await bundle("src/app/api/webhooks/paykit-edge/route.ts", {
        format: "iife",
        globalName: "__route",
        // `next build` inlines every process.env.NAME the code reads; an unset one becomes ""
        define: Object.fromEntries(
          Object.entries({ PAYKIT_REDIS_REST_URL: "", PAYKIT_REDIS_REST_TOKEN: "", ...envOf(config) }).map(
            ([k, v]) => [`process.env.${k}`, JSON.stringify(v)],
          ),
        ),
      });
      const runtime = new EdgeRuntime({
        initialCode: `${code}\naddEventListener("fetch", (event) => event.respondWith(__route.POST(event.request)));`,
      });
      const server = await runServer({ runtime, port: 0, host: "127.0.0.1" });
      return { url: server.url.replace(/\/$/, ""), stop: () => server.close() };
    },
  },
];

/** The recipe named `name`. */
export function recipe(name: string): Recipe {
  const found = RECIPES.find((r) => r.name === name);
  if (!found) throw new Error(`no recipe named ${name}`);
  return found;
}
