import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineConfig, type Options } from "tsup";
import { leanQrWithoutCanvas } from "./scripts/lean-qr-without-canvas.js";
import { CHECKOUT_CSS } from "./src/checkout/styles.js";

/** The IIFE build for a plain `<script>` tag: `window.Paykit.handlePendingThreeDS`, minified. */
export const iifeBuild: Options = {
  entry: { "paykit-browser": "src/global.ts" },
  format: ["iife"],
  platform: "browser",
  target: "es2020",
  minify: true,
  sourcemap: true,
  // The ESM/CJS build below cleans dist/; this one must not race it.
  clean: false,
};

/** The ESM and CJS builds for bundlers, with their type declarations. */
export const moduleBuild: Options = {
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  // No clean here: the four builds write into dist/ at the same time, and tsup's clean of a build with types
  // deletes every .d.ts in the folder when its type build starts, the checkout's too. `pnpm build` empties
  // dist/ before tsup starts (package.json).
  clean: false,
  target: "es2020",
  platform: "browser",
  treeshake: true,
};

/** Writes `checkout.css` (the fallback stylesheet, `@paykit/browser/checkout.css`) next to the checkout build. */
const checkoutCss = {
  name: "paykit-checkout-css",
  setup(build: { initialOptions: { outdir?: string }; onEnd(callback: () => Promise<void>): void }) {
    build.onEnd(() => writeFile(join(build.initialOptions.outdir ?? "dist", "checkout.css"), CHECKOUT_CSS));
  },
};

/**
 * The ESM and CJS builds of `@paykit/browser/checkout` and of its `/checkout/element` entry. A build of its own,
 * so that the 3DS entry above stays one file importing nothing; lean-qr (a dev dependency) is bundled in, so the
 * package keeps no runtime dependency.
 */
export const checkoutBuild: Options = {
  entry: { checkout: "src/checkout/index.ts", "checkout-element": "src/checkout/define.ts" },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: false,
  target: "es2020",
  platform: "browser",
  treeshake: true,
  noExternal: ["lean-qr"],
  esbuildPlugins: [checkoutCss, leanQrWithoutCanvas],
  // The two ESM entries share one chunk. A fixed name, overwritten by each build (a hashed one would pile up in
  // dist/, since no build may clean the folder the others write to), starting with "checkout" so that the 3DS
  // build's clean spares it.
  esbuildOptions(options) {
    options.chunkNames = "checkout-shared";
  },
};

/** The IIFE of the checkout for a plain `<script>` tag: `window.PaykitCheckout` and `<paykit-payment>`, minified. */
export const checkoutIifeBuild: Options = {
  entry: { "paykit-checkout": "src/checkout/global.ts" },
  format: ["iife"],
  platform: "browser",
  target: "es2020",
  minify: true,
  sourcemap: true,
  clean: false,
  noExternal: ["lean-qr"],
  esbuildPlugins: [leanQrWithoutCanvas],
};

export default defineConfig([moduleBuild, iifeBuild, checkoutBuild, checkoutIifeBuild]);
