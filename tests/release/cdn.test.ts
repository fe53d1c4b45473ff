// The CDN block of the docs (scripts/cdn.mjs): every page shows the block the release record gives, so a
// page never shows a URL or hash the release did not write; and the JSR configuration matches npm's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkPages, integrity, readRecord, renderBlock, replaceBlock } from "../../scripts/cdn.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"));

describe("the CDN block of docs/checkout.md, docs/three-ds.md and the browser README", () => {
  it("is on every page, as the release record (packages/browser/etc/cdn.json) gives it", () => {
    expect(checkPages(root)).toEqual([]);
  });

  it("before the first release says so; after it, pins the version and each file's SRI hash", () => {
    expect(renderBlock(null)).toContain("Not published yet");
    const block = renderBlock({
      version: "1.2.3",
      files: {
        "dist/paykit-checkout.global.js": "sha384-checkout",
        "dist/paykit-browser.global.js": "sha384-threeds",
      },
    });
    expect(block).toContain(
      '<script src="https://cdn.jsdelivr.net/npm/@paykit/browser@1.2.3/dist/paykit-checkout.global.js"\n        integrity="sha384-checkout" crossorigin="anonymous"></script>',
    );
    expect(block).toContain(
      '@paykit/browser@1.2.3/dist/paykit-browser.global.js"\n        integrity="sha384-threeds"',
    );
    // the block is not a runnable html block: tests/docs would load the current build under an old hash
    expect(block).not.toContain("```html");
  });

  it("hashes the bytes as SRI does (sha384, base64)", () => {
    // the W3C SRI spec's example: `alert('Hello, world.');`
    expect(integrity("alert('Hello, world.');")).toBe(
      "sha384-H8BRh8j48O9oYatfu5AZzq6A9RINhZO5H16dQZngK7T62em8MUt1FLm52t+eX6xO",
    );
  });

  it("is replaced between its markers, and a page without them is an error", () => {
    const page = "before\n<!-- cdn:begin: x -->\nold\n<!-- cdn:end -->\nafter\n";
    expect(replaceBlock(page, "NEW", "page.md")).toBe("before\nNEW\nafter\n");
    expect(() => replaceBlock("no block", "NEW", "page.md")).toThrow("page.md has no <!-- cdn:begin");
  });

  it("the unpkg and jsdelivr files are the payment screen's <script> build", () => {
    const browser = readJson("packages/browser/package.json");
    expect(browser.unpkg).toBe("./dist/paykit-checkout.global.js");
    expect(browser.jsdelivr).toBe(browser.unpkg);
    expect(browser.exports["./checkout/iife"]).toBe(browser.unpkg);
    const record = readRecord(root);
    if (record) expect(record.version).toBe(browser.version);
  });
});

describe("JSR", () => {
  it("publishes @paykit/contract, @paykit/webhooks and @paykit/node from the deno.json workspace", () => {
    expect(readJson("deno.json").workspace).toEqual([
      "./packages/contract",
      "./packages/webhooks",
      "./packages/node",
    ]);
  });

  it.each(["contract", "webhooks", "node"])(
    "jsr.json of %s names the package's version and entry points",
    (dir) => {
      const npm = readJson(`packages/${dir}/package.json`);
      const jsr = readJson(`packages/${dir}/jsr.json`);
      expect([jsr.name, jsr.version]).toEqual([npm.name, npm.version]);
      const sources = Object.fromEntries(
        Object.entries(npm.exports as Record<string, { "@paykit/source"?: string }>)
          .filter(([, target]) => typeof target === "object" && target["@paykit/source"])
          .map(([key, target]) => [key, target["@paykit/source"]]),
      );
      expect(jsr.exports).toEqual(sources);
      expect(jsr.publish.exclude).toEqual(expect.arrayContaining(["src/**/*.test.ts", "src/**/*.test-d.ts"]));
    },
  );
});
