import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@paykit/source"] },
  test: {
    name: "contract",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
