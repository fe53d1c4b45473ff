// The blocks of docs/checkout.md that serve @paykit/browser's two `<script>` builds (Express, Fastify, and
// the copy script for Next.js's public/), run as printed: each must hand out exactly the installed
// package's files under /vendor/paykit-checkout.js and /vendor/paykit-browser.js. (The Next.js example runs
// the same copy script under `next build` and fetches the files from `next start`.)
import { existsSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { extractBlocks } from "../src/extract.js";
import { generate } from "../src/generate.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..", "..");
// Its own directory: the docs test empties .gen/ when it starts, perhaps while this file runs.
const genDir = join(here, "..", ".gen-scripts");
const require = createRequire(import.meta.url);
const BUILDS = {
  "paykit-checkout.js": readFileSync(require.resolve("@paykit/browser/checkout/iife"), "utf8"),
  "paykit-browser.js": readFileSync(require.resolve("@paykit/browser/iife"), "utf8"),
};
const blocks = generate(extractBlocks(root, "docs/checkout.md"), genDir, join(here, "..", "src")).filter(
  (g) => g.file !== undefined && g.block.code.includes("@paykit/browser/checkout/iife"),
);
const closers: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const close of closers) await close();
});

/** Serves an Express or Fastify app the block exports; its base URL. */
async function serve(app: unknown): Promise<string> {
  const candidate = app as {
    inject?: unknown;
    listen(...args: unknown[]): unknown;
    close(): Promise<unknown>;
  };
  if (typeof candidate.inject === "function") {
    closers.push(() => candidate.close());
    return (await candidate.listen({ port: 0, host: "127.0.0.1" })) as string;
  }
  const server = candidate.listen(0, "127.0.0.1") as Server;
  await new Promise((resolve) => server.once("listening", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the blocks that serve the <script> builds", () => {
  it("are found: Express, Fastify and the Next.js copy script", () => {
    expect(blocks.map((g) => /express|Fastify|copyFileSync/.exec(g.block.code)?.[0])).toEqual([
      "express",
      "Fastify",
      "copyFileSync",
    ]);
  });

  for (const g of blocks) {
    it(`docs/checkout.md:${g.block.line} (${g.block.lang}) hands out the installed builds`, async () => {
      const mod = (await import(pathToFileURL(g.file as string).href)) as { app?: unknown };
      const base = mod.app === undefined ? undefined : await serve(mod.app);
      for (const [name, code] of Object.entries(BUILDS)) {
        if (base === undefined) {
          // the copy script: public/ beside the scripts/ directory it lives in
          const copied = join(g.file as string, "..", "..", "public", "vendor", name);
          expect(existsSync(copied), copied).toBe(true);
          expect(readFileSync(copied, "utf8")).toBe(code);
          continue;
        }
        const response = await fetch(`${base}/vendor/${name}`);
        expect(response.status, name).toBe(200);
        expect(response.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
        expect(await response.text()).toBe(code);
      }
    });
  }
});
