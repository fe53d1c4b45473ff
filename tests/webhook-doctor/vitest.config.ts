import { testProject } from "../support/vitest.shared.js";

export default testProject({
  name: "webhook-doctor",
  packages: "dist",
  include: ["*.test.ts"],
  testTimeout: 60_000,
});
