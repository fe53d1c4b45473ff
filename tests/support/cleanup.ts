// A setup file of every project (tests/support/vitest.shared.ts): when a test file ends, every process
// group it started through scripts/processes.mjs (servers, CLIs, runtimes) and did not stop is killed,
// and counted, so that the test that forgot is fixed. Those groups die with the test process anyway.
import { afterAll } from "vitest";
import { killAllGroups } from "../../scripts/processes.mjs";

afterAll(() => {
  const left = killAllGroups();
  if (left > 0) console.warn(`${left} process group(s) this test file started were still running: killed`);
});

// A worker of vitest's forks pool outlives its runner (killed, or its terminal closed) and goes on
// running a hung test with every process it started: it leaves with its runner instead.
const WATCHING = Symbol.for("paykit.test-worker-leaves-with-runner");
const state = globalThis as { [WATCHING]?: true };
if (process.connected && !state[WATCHING]) {
  state[WATCHING] = true;
  process.once("disconnect", () => process.exit(1));
}
