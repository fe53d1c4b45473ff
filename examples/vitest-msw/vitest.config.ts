import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({ name: "example-vitest-msw", include: ["test/**/*.test.ts"] });
