import { defineConfig } from "vitest/config";

// No @paykit/source condition: the blocks run against the built packages (dist), as a merchant's do.
// defineConfig, not defineProject: onConsoleLog is a root option, and this project runs on its own.
export default defineConfig({
  test: {
    name: "docs",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The blocks' own console output (a QR code, validation details) stays out of the report: the
    // test prints one line, `docs: N blocks, …`. A failing block's error still shows in full.
    onConsoleLog: (log: string) => log.startsWith("docs: "),
  },
});
