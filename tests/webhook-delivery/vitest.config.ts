import { testProject } from "../support/vitest.shared.js";

// The receiver processes load the built @paykit/webhooks (dist), as a merchant's do.
export default testProject({
  name: "webhook-delivery",
  packages: "dist",
  include: ["*.test.ts"],
  testTimeout: 240_000,
});
