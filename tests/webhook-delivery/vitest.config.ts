import { testProject } from "../support/vitest.shared.js";

// The receiver processes load the built @paykit/webhooks (dist), as a merchant's do.
export default testProject({
  name: "webhook-delivery",
  packages: "dist",
  include: ["*.test.ts"],
  // Each scenario takes about 10 s alone, but 100-250 s in a full `npm test` on 2 cores (four receiver
  // processes, Redis or PostgreSQL and the mock share them with every other suite): 240 s ran out once.
  testTimeout: 600_000,
});
