import { defineProject } from "vitest/config";

export default defineProject({
  // Workspace packages resolve to src/ through the @paykit/source condition (as in packages/*).
  resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] },
  ssr: { resolve: { conditions: ["@paykit/source", "module", "node", "development|production"] } },
  test: {
    name: "openapi",
    include: ["*.test.ts"],
    testTimeout: 90_000,
    typecheck: { enabled: true, include: ["*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
