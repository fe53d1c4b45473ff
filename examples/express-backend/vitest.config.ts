import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({ name: "example-express-backend", include: ["test/**/*.test.ts"] });
