import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({ name: "webhooks" });
