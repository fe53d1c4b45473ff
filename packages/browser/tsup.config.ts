import { defineConfig, type Options } from "tsup";

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
  // Keeps the IIFE's output, which the other build writes into the same dist/ concurrently.
  clean: ["!paykit-browser.global.js*"],
  target: "es2020",
  platform: "browser",
  treeshake: true,
};

export default defineConfig([moduleBuild, iifeBuild]);
