import { testProject } from "../support/vitest.shared.js";

// Packs the built packages and runs them on every runtime we promise.
export default testProject({
  name: "runtime-matrix",
  packages: "dist",
  include: ["*.test.ts"],
  testTimeout: 180_000,
  hookTimeout: 300_000,
  maxConcurrency: 2,
});
