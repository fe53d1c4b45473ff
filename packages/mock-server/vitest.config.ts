import { testProject } from "../../tests/support/vitest.shared.js";

export default testProject({
  name: "mock-server",
  // A worker's first durable harness opens its PGlite database in a beforeAll (a copy of the run's
  // template, test/pglite-from-template.ts; the template's initdb in WASM took 18 s on a loaded CI
  // machine), and the migration tests open theirs inside the test.
  testTimeout: 90_000,
  hookTimeout: 120_000,
  // PostgreSQL for the `postgres` store and the multi-process tests: started by the first file that
  // asks for it (tests/support/services.ts), one server for the run.
  globalSetup: ["../../tests/support/services.global.ts"],
  // A new PGlite data directory is a copy of one initdb made for the run (test/pglite-from-template.ts).
  setupFiles: ["./test/pglite-from-template.ts"],
  // The longest suite of `npm test`: four files at a time (the scenario suite is one file per store), as
  // much of it waits on PostgreSQL, PGlite's disk, its own HTTP servers and child processes; and the
  // files that mostly wait (process kills, failovers, CLI runs, Chromium, `paykit-mock listen`'s
  // stopped and slow receivers) start first, so that on a fresh clone (no timings of a last run) the
  // longest of them do not start last and run on alone (the 40 s SIGSTOP test ended a full run so).
  // The longest of all (accounts read in and out of memory, on PGlite and PostgreSQL, about 250 s of a
  // loaded full run) goes first of all, then the multi-process ones, then the scenario suites.
  maxWorkers: 4,
  startFirst: [
    /^test\/stores\/load-on-use\./,
    /^test\/stores\/(processes-shared|restart|failover|database-restart)\./,
    // the scenario suite over each store, and the fuzzer: a minute each of a loaded run, which started
    // last and ran on with two workers idle
    /^test\/(scenarios-|fuzz\.)/,
    /^test\/(stores\/|scenarios-|cli\.|doctor\.|trigger-cli\.|mcp\.|fuzz\.|listen-|.*\.browser\.)/,
  ],
});
