import { defineConfig } from "tsup";

// `@paykit/contract`, `@paykit/webhooks` and zod are ordinary run-time dependencies (tsup leaves them
// external), so a merchant's process holds one copy of each class and schema: an error from
// `paykit.webhooks.parse` is `instanceof` the class imported from `@paykit/webhooks`. Both are imported
// on first use (src/core/contract.ts), which keeps the cold start low. Requests go through the runtime's
// own `fetch`: nothing else is bundled (docs/decisions/node-client.md).
// Unminified, with source maps, so a production stack trace points at readable code.
export default defineConfig({
  entry: ["src/index.ts", "src/checkout/index.ts", "src/checkout/redis.ts", "src/checkout/postgres.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  treeshake: true,
  // Splitting in both formats: the main entry and `@paykit/node/checkout` share one copy of the error
  // classes and the status hub, so `instanceof PaykitConfigError` holds for either import path in CJS too.
  splitting: true,
  // In the CJS build the lazy imports become `require()`: an `import()` there would load the ESM build of
  // `@paykit/webhooks` beside the CJS one, and its errors would not be `instanceof` the classes exported.
  esbuildOptions(options, context) {
    if (context.format === "cjs") options.supported = { ...options.supported, "dynamic-import": false };
  },
});
