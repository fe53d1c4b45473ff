import { testProject } from "../../tests/support/vitest.shared.js";

// No "module" condition on the Node side: OpenTelemetry's build for bundlers (extensionless imports)
// fails there. Two files at a time (vitest's default is one on a 2-core machine): most of them wait on
// Redis, PostgreSQL, the mock or a child process, and one after the other the suite took 85 s alone for
// 38 s of CPU (42 s two at a time).
export default testProject({ name: "node", moduleCondition: false, maxWorkers: 2 });
