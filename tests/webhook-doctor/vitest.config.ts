import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "webhook-doctor", include: ["*.test.ts"], testTimeout: 60_000 },
});
