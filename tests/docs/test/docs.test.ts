// `pnpm test:docs`: every ts/tsx/js/mjs/html block of the docs and READMEs, type-checked against the
// built packages in one tsc program, then run against a real mock server (HTML in Chromium).
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allBlocks, type DocBlock, where } from "../src/extract.js";
import { type GeneratedBlock, generate, PRELUDE_LINES } from "../src/generate.js";
import { runBrowserBlock, runHtmlBlock, startBrowser, stopBrowser } from "../src/html.js";
import { typecheck } from "../src/typecheck.js";
import { startWorld, stopWorld } from "../src/world.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..", "..");
const blocks = allBlocks(root);
const generated = generate(blocks, join(here, "..", ".gen"), join(here, "..", "src"));
const BLOCK_TIMEOUT_MS = 20_000;
// A block run in Chromium: the first of a run also waits for the browser and its page's bundle, which a
// busy CI machine takes well over 20 s to give (the screen itself waits up to 30 s to be drawn).
const BROWSER_BLOCK_TIMEOUT_MS = 90_000;
/**
 * A block's time limit: 20 s, or its `timeout=<ms>` (a block that creates an embedded database, whose
 * initdb alone takes ~2.5 s on a quiet machine and ~20 s on a loaded CI runner).
 */
function timeoutOf(block: DocBlock): number {
  const ms = Number(block.attrs.timeout);
  return Number.isInteger(ms) && ms > 0 ? ms : BLOCK_TIMEOUT_MS;
}

const results = { ran: 0, failed: [] as string[], notRun: [] as string[] };
let diagnostics = new Map<string, ReturnType<typeof typecheck> extends Map<string, infer V> ? V : never>();

function label(block: DocBlock): string {
  const attrs = Object.entries(block.attrs).map(([k, v]) => `${k}=${v}`);
  return `${where(root, block)} ${block.lang}${attrs.length ? ` ${attrs.join(" ")}` : ""}`;
}

async function withTimeout<T>(promise: Promise<T>, what: string, ms = BLOCK_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  diagnostics = typecheck(
    root,
    generated.flatMap((g) => (g.file ? [g.file] : [])),
  );
  await startWorld();
  if (generated.some((g) => g.block.lang === "html" || g.block.attrs.context === "checkout-page")) {
    await startBrowser();
  }
});

afterAll(async () => {
  const reasons = results.notRun.length ? ` (${results.notRun.join("; ")})` : "";
  console.log(
    `docs: ${blocks.length} blocks, ${results.ran} ran, ${results.failed.length} failed, ${results.notRun.length} not run${reasons}`,
  );
  await stopBrowser();
  await stopWorld(); // quiets the console (see there): the summary goes first
});

describe("docs blocks", () => {
  it("finds the blocks and allows at most 3 not-run ones", () => {
    expect(blocks.length).toBeGreaterThan(30);
    const norun = blocks.filter((b) => b.attrs.norun !== undefined);
    for (const b of norun) expect(b.attrs.norun, `${where(root, b)}: norun needs a reason`).not.toBe("");
    expect(norun.length).toBeLessThanOrEqual(3);
  });

  it("type-checks no generated file outside the blocks", () => {
    const files = new Set(generated.map((g) => g.file));
    const stray = [...diagnostics.entries()].filter(([file]) => !files.has(file));
    expect(stray.flatMap(([, list]) => list.map((d) => `${d.file}:${d.line} ${d.message}`))).toEqual([]);
  });

  for (const g of generated as GeneratedBlock[]) {
    it(
      label(g.block),
      async () => {
        try {
          const errors = (g.file ? (diagnostics.get(g.file) ?? []) : []).map(
            (d) => `${g.block.page}:${g.block.line + d.line - PRELUDE_LINES} ${d.message}`,
          );
          expect(errors, "type errors").toEqual([]);
          if (g.block.attrs.norun !== undefined) {
            results.notRun.push(`${where(root, g.block)}: ${g.block.attrs.norun}`);
            return;
          }
          if (g.block.lang === "html")
            await withTimeout(runHtmlBlock(g.block), where(root, g.block), BROWSER_BLOCK_TIMEOUT_MS);
          else if (g.block.attrs.context === "checkout-page") {
            await withTimeout(
              runBrowserBlock(g.file as string, where(root, g.block)),
              where(root, g.block),
              BROWSER_BLOCK_TIMEOUT_MS,
            );
          } else
            await withTimeout(
              import(pathToFileURL(g.file as string).href),
              where(root, g.block),
              timeoutOf(g.block),
            );
          results.ran++;
        } catch (error) {
          results.failed.push(where(root, g.block));
          throw error;
        }
      },
      (g.block.lang === "html" || g.block.attrs.context === "checkout-page"
        ? BROWSER_BLOCK_TIMEOUT_MS
        : timeoutOf(g.block)) + 10_000,
    );
  }
});
