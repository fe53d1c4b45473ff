import { defineConfig } from "vitest/config";

// `pnpm vitest` at the root runs every package's project; CI runs them per package through turbo.
export default defineConfig({
  test: { projects: ["packages/*/vitest.config.ts", "examples/*/vitest.config.ts"] },
});
