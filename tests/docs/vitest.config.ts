import { testProject } from "../support/vitest.shared.js";

// The blocks run against the built packages (dist), as a merchant's do.
export default testProject({
  name: "docs",
  packages: "dist",
  include: ["test/**/*.test.ts"],
  hookTimeout: 120_000,
  // The blocks' own console output (a QR code, validation details) stays out of the report: the
  // test prints one line, `docs: N blocks, …`. A failing block's error still shows in full.
  onConsoleLog: (log: string) => log.startsWith("docs: "),
});
