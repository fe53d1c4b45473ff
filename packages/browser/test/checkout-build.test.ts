// The built checkout entry: its byte budget, what it imports, its IIFE and stylesheet, and that the 3DS builds
// carry none of it. Runs on the build that test/global-setup.ts makes with the real tsup.config.ts options.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { describe, expect, inject, it } from "vitest";
import { CHECKOUT_CSS } from "../src/checkout/index.js";

const buildDir = inject("buildDir");
const read = (file: string) => readFileSync(join(buildDir, file));
const gzip = (code: string | Buffer) => gzipSync(code, { level: 9 }).length;

/**
 * The checkout budget of issue 23: the entry with its QR encoder, minified and gzipped, at most 9 KB. Renewal and
 * the phone layout (issue 37) fit in it: 9,202 B (docs/decisions/checkout-budget-renew.md).
 */
const CHECKOUT_BUDGET = 9 * 1024;

/** esbuild, which comes with tsup (a dev dependency of the workspace). */
function esbuild(): {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
} {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve("tsup"))("esbuild");
}

/** Bundles `contents` against the built files into one minified ESM file, as a merchant's bundler would. */
async function bundle(contents: string): Promise<string> {
  const result = await esbuild().build({
    stdin: { contents, resolveDir: buildDir, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    minify: true,
  });
  return result.outputFiles[0]!.text;
}

describe("the checkout entry (@paykit/browser/checkout)", () => {
  it(`weighs at most ${CHECKOUT_BUDGET} B minified and gzipped with its QR encoder (zlib level 9)`, async () => {
    const code = await bundle(`export * from "./checkout.js";`);
    expect(code).toContain("lean-qr"); // its licence notice: the encoder is in the measured bytes
    console.log(
      `checkout entry: ${code.length} B minified, ${gzip(code)} B minified+gzip (budget ${CHECKOUT_BUDGET})`,
    );
    expect(gzip(code)).toBeLessThanOrEqual(CHECKOUT_BUDGET);
  });

  it("carries none of lean-qr's canvas drawing, which the SVG screen never uses (scripts/lean-qr-without-canvas.ts)", async () => {
    const code = await bundle(`export * from "./checkout.js";`);
    expect(code).toContain("createElementNS"); // the QR code is drawn, as SVG
    for (const canvasOnly of ["toCanvas", "ImageData", "getContext"]) expect(code).not.toContain(canvasOnly);
    expect(read("paykit-checkout.global.js").toString()).not.toContain("toCanvas");
  });

  it("imports nothing outside this package at run time (lean-qr is bundled in)", () => {
    for (const file of ["checkout.js", "checkout.cjs", "checkout-element.js", "checkout-element.cjs"]) {
      const code = read(file).toString();
      const imports = [...code.matchAll(/\bfrom\s*["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']\)/g)];
      expect(imports.map((match) => match[1] ?? match[2]).filter((path) => !path!.startsWith("./"))).toEqual(
        [],
      );
    }
  });

  it("import() and require() of the built entry give the same API", async () => {
    const esm = await import(pathToFileURL(join(buildDir, "checkout.js")).href);
    const cjs = createRequire(import.meta.url)(join(buildDir, "checkout.cjs"));
    const api = [
      "CHECKOUT_CSS",
      "CHECKOUT_STRINGS",
      "FINAL_STATUSES",
      "PaykitCheckoutError",
      "definePaykitPayment",
      "mountPayment",
      "statusUrlFor",
      "watchPaymentStatus",
    ];
    expect(Object.keys(esm).sort()).toEqual(api);
    expect(Object.keys(cjs).sort()).toEqual(api);
  });

  it("a page importing only watchPaymentStatus gets no QR encoder, screen or strings", async () => {
    const code = await bundle(`export { watchPaymentStatus } from "./checkout.js";`);
    expect(code).toContain("EventSource"); // the check below can fail: this bundle is not empty
    for (const screenOnly of ["http://www.w3.org/2000/svg", "Pague com PIX", "adoptedStyleSheets"]) {
      expect(code).not.toContain(screenOnly);
    }
  });

  it("checkout.css is the stylesheet the screen adopts", () => {
    expect(read("checkout.css").toString()).toBe(CHECKOUT_CSS);
  });
});

describe("the checkout IIFE for a <script> tag", () => {
  it("defines window.PaykitCheckout and nothing else (no customElements here: nothing to register)", () => {
    const page: Record<string, unknown> = {};
    runInNewContext(read("paykit-checkout.global.js").toString(), page);
    expect(Object.keys(page)).toEqual(["PaykitCheckout"]);
    expect(page.PaykitCheckout).toEqual({
      mountPayment: expect.any(Function),
      definePaykitPayment: expect.any(Function),
      watchPaymentStatus: expect.any(Function),
    });
  });

  it("weighs no more than the entry's budget either", () => {
    const iife = read("paykit-checkout.global.js");
    console.log(`dist/paykit-checkout.global.js: ${iife.length} B minified, ${gzip(iife)} B minified+gzip`);
    expect(gzip(iife)).toBeLessThanOrEqual(CHECKOUT_BUDGET);
  });
});

describe("the 3DS builds stay as they were", () => {
  it.each(["paykit-browser.global.js", "index.js", "index.cjs"])(
    "%s carries nothing of the checkout",
    (file) => {
      const code = read(file).toString();
      for (const checkoutOnly of ["paykit-payment", "lean-qr", "EventSource", "adoptedStyleSheets"]) {
        expect(code).not.toContain(checkoutOnly);
      }
    },
  );
});
