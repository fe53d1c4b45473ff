import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition (as in the other examples);
  // the Bun, Workers and Edge runs bundle or resolve the built packages (dist).
  resolve: { conditions: ["@paykit/source", "module", "browser", "development|production"] },
  ssr: { resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] } },
  test: {
    name: "example-webhook-recipes",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
