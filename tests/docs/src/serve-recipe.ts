// Serves one webhook recipe of docs/webhooks-recipes.md, as printed, in its own process:
// `node --import tsx/esm serve-recipe.ts <generated block>`. The block is imported with PORT set to a
// free port; whatever it exports is then served the way its framework is (a node:http server or a
// Nest app that listen, an Express or Fastify app, a web-standard `fetch`, a route handler's `POST`),
// and one line `LISTENING <base url>` is printed for the test to point the doctor at.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";

const HOST = "127.0.0.1";

type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, HOST, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await new Promise((resolve) => server.once("listening", resolve));
  return `http://${HOST}:${(server.address() as AddressInfo).port}`;
}

async function serveFetch(fetch: (request: Request) => Response | Promise<Response>): Promise<string> {
  return listening(serve({ fetch, port: 0, hostname: HOST }) as Server);
}

/** Resolves once something accepts connections on `port` (a block that listens without exporting its server). */
async function portOpen(port: number): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, HOST, () => {
        socket.end();
        resolve(true);
      }).once("error", () => resolve(false));
    });
    if (open) return `http://${HOST}:${port}`;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const has = (value: unknown, name: string): boolean =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as Record<string, unknown>)[name] === "function";

/** Serves what a recipe block exports; the base URL it answers on. */
async function serveModule(mod: Record<string, unknown>, port: number): Promise<string> {
  const { server, nest, app, POST } = mod;
  const fallback = mod.default;
  if (server !== undefined) return listening(server as Server);
  if (has(nest, "listen")) {
    await (nest as { listen(port: number, host: string): Promise<unknown> }).listen(0, HOST);
    return listening((nest as { getHttpServer(): Server }).getHttpServer());
  }
  if (has(app, "inject") && has(app, "register")) {
    // Fastify
    return (app as { listen(o: { port: number; host: string }): Promise<string> }).listen({
      port: 0,
      host: HOST,
    });
  }
  if (typeof app === "function" && has(app, "listen")) {
    // Express
    return listening((app as unknown as { listen(port: number, host: string): Server }).listen(0, HOST));
  }
  if (has(app, "fetch")) return serveFetch((request) => (app as { fetch: FetchHandler }).fetch(request));
  if (typeof POST === "function") return serveFetch((request) => (POST as FetchHandler)(request));
  if (has(fallback, "fetch")) {
    // Bun's `export default { fetch }`, or a Worker reading its bindings from `env`
    const env = { PAYKIT_WEBHOOK_SECRET: process.env.PAYKIT_WEBHOOK_SECRET };
    return serveFetch((request) => (fallback as { fetch: FetchHandler }).fetch(request, env));
  }
  return portOpen(port); // the block listens on PORT by itself
}

const file = process.argv[2];
if (!file) throw new Error("usage: serve-recipe.ts <generated block>");
const port = await freePort();
process.env.PORT = String(port);
const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
process.stdout.write(`LISTENING ${await serveModule(mod, port)}\n`);
