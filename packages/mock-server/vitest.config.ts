import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({
  name: "mock-server",
  // A test file's first durable harness creates its PGlite database (initdb in WASM: ~2.5 s alone,
  // 18 s seen on a loaded CI machine) in a beforeAll; the migration tests make theirs inside the test
  // (over 30 s seen with the machine's load at 15).
  testTimeout: 90_000,
  hookTimeout: 120_000,
  // PostgreSQL for the `postgres` store and the multi-process tests: started by the first file that
  // asks for it (tests/support/services.ts), one server for the run.
  globalSetup: ["../../tests/support/services.global.ts"],
  // The longest suite of `npm test`: three files at a time (the scenario suite is one file per store),
  // as much of it waits on PostgreSQL, PGlite's disk and its own HTTP servers.
  maxWorkers: 3,
});
