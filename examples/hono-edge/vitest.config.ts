import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({ name: "example-hono-edge", include: ["test/**/*.test.ts"] });
