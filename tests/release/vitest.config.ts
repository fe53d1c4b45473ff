import { testProject } from "../support/vitest.shared.js";

// The release path against a real registry, and the rules of the API check and the docs' CDN block.
export default testProject({
  name: "release",
  packages: "dist",
  include: ["*.test.ts"],
  // the registry test first: it mostly waits on processes
  startFirst: /registry\.test\.ts$/,
  testTimeout: 300_000,
  hookTimeout: 300_000,
});
