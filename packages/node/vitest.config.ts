import { testProject } from "../../tests/support/vitest.shared.js";

// No "module" condition on the Node side: OpenTelemetry's build for bundlers (extensionless imports)
// fails there.
export default testProject({ name: "node", moduleCondition: false });
