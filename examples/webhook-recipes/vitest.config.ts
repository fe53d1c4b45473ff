import { testProject } from "../../tests/support/vitest.shared.js";

// The Bun, Workers and Edge runs bundle or resolve the built packages (dist): the turbo `test` task
// depends on `^build`. No "module" condition on the Node side: OpenTelemetry's build for bundlers
// (extensionless imports) fails there.
export default testProject({
  name: "example-webhook-recipes",
  include: ["test/**/*.test.ts"],
  moduleCondition: false,
});
