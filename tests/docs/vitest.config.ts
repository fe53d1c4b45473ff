import { defineProject } from "vitest/config";

// No @paykit/source condition: the blocks run against the built packages (dist), as a merchant's do.
export default defineProject({
  test: {
    name: "docs",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The blocks' own console output (a QR code, validation details) stays out of the report: the
    // test prints one line, `docs: N blocks, …`. A failing block's error still shows in full.
    onConsoleLog: (log) => log.startsWith("docs: "),
  },
});
