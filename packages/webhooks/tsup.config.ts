import { defineConfig } from "tsup";

// Splitting in both formats: `@paykit/webhooks` and `@paykit/webhooks/errors` share one chunk holding the
// error classes, so an error is `instanceof` the class from either import path, in ESM and in CJS (and
// `@paykit/webhooks/dedupe` and `/order` one each holding the deduplicator and the order guard, which
// `@paykit/node` re-exports without loading the contract's schemas).
// Dependencies (`@paykit/contract`, zod) stay external: one copy of every schema in a process.
export default defineConfig({
  entry: [
    "src/index.ts",
    "src/errors.ts",
    "src/dedupe.ts",
    "src/order.ts",
    "src/testing.ts",
    "src/redis.ts",
    "src/postgres.ts",
  ],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  treeshake: true,
  splitting: true,
});
