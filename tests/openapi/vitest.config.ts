import { testProject } from "../support/vitest.shared.js";

export default testProject({ name: "openapi", include: ["*.test.ts"], testTimeout: 90_000 });
