import { defineConfig } from "tsup";

// `@paykit/contract`, `@paykit/webhooks` and zod are ordinary run-time dependencies (tsup leaves them
// external), so a merchant's process holds one copy of each class and schema: an error from
// `paykit.webhooks.parse` is `instanceof` the class imported from `@paykit/webhooks`. Both are imported
// on first use (src/core/contract.ts), which keeps the cold start low. ky alone is bundled: it is
// ESM-only, `require()` users on Node 20 could not load it, and no ky type or error crosses our API.
// Unminified, with source maps, so a production stack trace points at readable code.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  treeshake: true,
  noExternal: ["ky"],
  // In the CJS build the lazy imports become `require()`: an `import()` there would load the ESM build of
  // `@paykit/webhooks` beside the CJS one, and its errors would not be `instanceof` the classes exported.
  esbuildOptions(options, context) {
    if (context.format === "cjs") options.supported = { ...options.supported, "dynamic-import": false };
  },
});
