import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "runtime-matrix",
    include: ["*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    maxConcurrency: 2,
  },
});
