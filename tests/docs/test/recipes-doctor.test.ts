// Every webhook receiver recipe of docs/webhooks-recipes.md, copied as printed, passes
// `paykit-mock doctor`: each block (with the page's shared paykit.ts beside it) runs as a real server
// in its own process, configured by the PAYKIT_* variables it reads, against a real mock; the doctor
// then sends it its whole battery of deliveries.
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMockServer, type MockServer, runWebhookDoctor } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import { extractBlocks } from "../src/extract.js";
import { generate } from "../src/generate.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..", "..");
const PAGE = "docs/webhooks-recipes.md";
// Its own directory: the docs test empties .gen/ when it starts, perhaps while this file runs.
const genDir = join(here, "..", ".gen-doctor");
const runner = join(here, "..", "src", "serve-recipe.ts");
const tsx = pathToFileURL(createRequire(join(root, "package.json")).resolve("tsx/esm")).href;

// A receiver is a block that serves the page's shared `receive` (from ./paykit.js, directly or
// through the Hono app of ./hono-app.js); paykit.ts itself and the shared-store block are not.
const RECEIVER = /from "\.\/(paykit|hono-app)\.js"/;
const recipes = generate(extractBlocks(root, PAGE), genDir, join(here, "..", "src")).filter(
  (g) => g.file !== undefined && RECEIVER.test(g.block.code),
);

let mock: MockServer;
let env: Record<string, string>;
let secret: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  mock = await createMockServer({ autoAdvance: false });
  secret = generateWebhookSecret();
  const keys = await mock.control.createAccount({ webhookSecret: secret });
  env = {
    PAYKIT_PUBLIC_KEY: keys.publicKey,
    PAYKIT_SECRET_KEY: keys.secretKey,
    PAYKIT_BASE_URL: mock.url,
    PAYKIT_WEBHOOK_SECRET: secret,
  };
});

afterEach(() => {
  // Each recipe runs in its own process group: the block's server and anything it started stop with it.
  for (const child of children.splice(0)) {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  }
});

afterAll(async () => {
  await mock?.close();
});

/** Starts a recipe's block in its own process; resolves with the base URL it serves. */
async function start(file: string): Promise<string> {
  // A process group of its own, also killed with this test process however it ends (scripts/processes.mjs).
  const child = spawnGroup(process.execPath, ["--import", tsx, runner, file], {
    cwd: genDir, // tsx reads the generated tsconfig.json (legacy decorators for the NestJS recipe)
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the recipe exited (${code}) before serving: ${stderr}`))),
  );
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const served = (async () => {
    for await (const line of lines) if (line.startsWith("LISTENING ")) return line.slice("LISTENING ".length);
    throw new Error(`the recipe printed no address: ${stderr}`);
  })();
  return Promise.race([served, exited]);
}

describe(`the webhook doctor against every recipe of ${PAGE}, as printed`, () => {
  it("finds every framework's recipe", () => {
    // node:http, Express, Fastify, the Hono app and its Node, Bun and Workers entries, Next.js, NestJS
    expect(recipes.length).toBeGreaterThanOrEqual(9);
  });

  it.each(recipes.map((g) => [`${PAGE}:${g.block.line}`, g.file as string]))(
    "%s passes every required case",
    async (_where, file) => {
      const base = await start(file);
      const report = await runWebhookDoctor({ url: `${base}/webhooks/paykit`, secret });
      expect(report.cases.filter((c) => c.required && !c.passed)).toEqual([]);
      expect(report.ok).toBe(true);
      // the doctor's valid events were acknowledged (204), not merely left unfailed
      expect(report.cases.find((c) => c.name === "valid-payin")?.got).toMatch(/^204 /);
    },
    90_000,
  );
});
