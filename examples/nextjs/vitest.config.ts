import { testProject } from "../../tests/support/vitest.shared.js";

// `next start` serves the build `next build` made (turbo runs the example's build first), against a
// real mock; Chromium drives the page.
export default testProject({ name: "example-nextjs", packages: "dist", include: ["test/**/*.test.ts"] });
