import { defineConfig } from "tsup";

// Five entries: the whole contract, `br` (Brazilian validators, no zod), `rules` (statuses, key
// rules, webhook constants, no zod), `messages` (messages for shoppers, no zod) and `openapi` (the
// document's generator and its examples, which the main entry does not load). Splitting in both
// formats makes the entries share chunks, so `BoletoError` from `@paykit/contract/br` is the class
// `@paykit/contract` exports, in ESM and in CJS.
export default defineConfig({
  entry: ["src/index.ts", "src/br.ts", "src/rules.ts", "src/messages.ts", "src/openapi.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  treeshake: true,
  splitting: true,
});
