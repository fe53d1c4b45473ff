import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({ name: "example-payout-reconciliation", include: ["test/**/*.test.ts"] });
