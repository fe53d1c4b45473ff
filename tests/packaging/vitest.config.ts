import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "packaging", include: ["*.test.ts"], testTimeout: 180_000, hookTimeout: 240_000 },
});
