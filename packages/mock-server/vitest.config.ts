import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition. Vitest runs Node tests in
  // Vite's SSR environment, which takes its conditions from ssr.resolve: both lists need it, or tests
  // would load a (possibly stale) dist/.
  resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] } },
  test: {
    name: "mock-server",
    // Generous for a loaded 2-core CI machine, where turbo runs every package\'s tests at once.
    testTimeout: 30_000,
    // A test file's first durable harness creates its PGlite database (initdb in WASM: ~2.5 s alone,
    // 18 s seen on a loaded CI machine) in a beforeEach.
    hookTimeout: 60_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // PostgreSQL for the acceptance suites' `postgres` store and the multi-process tests.
    globalSetup: ["./test/setup/postgres.global.ts"],
    typecheck: {
      enabled: true,
      include: ["src/**/*.test-d.ts", "test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
  },
});
