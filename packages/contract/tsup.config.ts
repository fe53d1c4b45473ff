import { defineConfig } from "tsup";

// Three entries: the whole contract, `br` (Brazilian validators, no zod) and `rules` (statuses, key
// rules, webhook constants, no zod). Splitting in both formats makes the entries share chunks, so
// `BoletoError` from `@paykit/contract/br` is the class `@paykit/contract` exports, in ESM and in CJS.
export default defineConfig({
  entry: ["src/index.ts", "src/br.ts", "src/rules.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  treeshake: true,
  splitting: true,
});
