import { testProject } from "../support/vitest.shared.js";

// Packs the built packages and installs the tarballs into fresh projects.
export default testProject({
  name: "packaging",
  packages: "dist",
  include: ["*.test.ts"],
  testTimeout: 180_000,
  hookTimeout: 240_000,
});
