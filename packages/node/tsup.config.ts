import { defineConfig } from "tsup";

// One lean file per format: the contract, the webhooks package, ky (ESM-only, so `require()` users
// need it bundled) and zod/mini are inlined and minified, which keeps the cold start low
// (README: Performance). Types still come from the workspace packages' own declarations.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  treeshake: true,
  minify: true,
  noExternal: ["@paykit/contract", "@paykit/webhooks", "ky", "zod"],
});
