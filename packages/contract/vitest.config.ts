import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition. Vitest runs Node tests in
  // Vite's SSR environment, which takes its conditions from ssr.resolve: both lists need it, or tests
  // would load a (possibly stale) dist/.
  resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] } },
  test: {
    name: "contract",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Property tests run thousands of cases: on a loaded 2-core CI machine (turbo runs every package's
    // tests at once) they took over vitest's 5 s default, though they need ~1 s alone.
    testTimeout: 60_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
