import { testProject } from "../../tests/support/vitest.shared.js";

// The demo's process run and the real-browser tests each start their own mock and backend.
export default testProject({ name: "example-checkout-page", include: ["test/**/*.test.ts"] });
