import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "store-engines", include: ["*.test.ts"], testTimeout: 120_000 },
});
