// POST /payin throughput of the shared sandbox (after `pnpm build`), and what each payin costs in CPU:
// 1 and 3 `paykit-mock --store` processes on a fresh PostgreSQL, every process posting to the default
// account (one hot account), then each to an account of its own. Each phase runs ROUNDS times and
// the median is printed. `node bench/shared-throughput.mjs` (also part of `pnpm bench`)
//
// With no copies of accounts in the processes (docs/decisions/sandbox-store.md), one account's payins take
// turns on its row lock whichever process serves them; processes on accounts of their own add throughput.
// Requests per second alone cannot say whether three processes would be faster than one on a machine
// with the cores for them: on a 2-core machine, three Node processes, PostgreSQL and the load generator
// share two cores. The CPU each payin costs (the mock processes' own, and PostgreSQL's: its server
// process and backends, read from /proc, so the rest of a shared machine's load does not count) can: when
// three processes cost what one does per payin, throughput follows the cores a team gives them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { startPostgres } from "../../../scripts/services.mjs";
import { ADMIN, basic, DEFAULT_KEYS, killAllMocks, startMock, stopMock } from "./mock-processes.mjs";

const { samplePayin } = await import("../dist/index.js");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 48;
// /proc counts CPU time in clock ticks of 10 ms (USER_HZ, 100 on Linux)
const TICK_MS = 10;

/** The fields of /proc/<pid>/stat after the command name (field 3 onwards), or null once it is gone. */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** CPU time (ms) a process used (utime + stime), and with `reaped` its waited-for children's too. */
function processCpuMs(pid, reaped = false) {
  const fields = statOf(pid);
  if (fields === null) return 0;
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (reaped ? ticks + Number(fields[13]) + Number(fields[14]) : ticks) * TICK_MS;
}

/** The pid of the PostgreSQL server listening on `port` (its command line has `-p <port>`). */
function postmasterOf(port) {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (args[0].endsWith("/postgres") && args[args.indexOf("-p") + 1] === String(port)) return Number(pid);
    } catch {}
  }
  throw new Error(`no PostgreSQL server listens on port ${port}`);
}

/**
 * CPU time (ms) PostgreSQL used: its server process, every process it started that still runs (the
 * backends, the writers) and the ones that ended (their time is added to the server's when it reaps them).
 */
function postgresCpuMs(postmaster) {
  let ms = processCpuMs(postmaster, true);
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name)))
    if (Number(statOf(pid)?.[1]) === postmaster) ms += processCpuMs(pid);
  return ms;
}

const run = (url, headers, connections) =>
  new Promise((done, fail) =>
    autocannon(
      {
        url: `${url}/payin`,
        method: "POST",
        connections,
        duration: SECONDS,
        headers,
        body: JSON.stringify(samplePayin("PIX", { referenceId: "r" })),
      },
      (e, r) => (e ? fail(e) : done(r)),
    ),
  );

/** One phase: every mock under load at once; its rate and CPU per 1,000 payins. */
async function phase(mocks, keysOf) {
  const pids = mocks.map((m) => m.pid);
  const before = { mocks: pids.map((pid) => processCpuMs(pid)), postgres: postgresCpuMs(postmaster) };
  const results = await Promise.all(
    mocks.map((m, i) =>
      run(
        m.url,
        { authorization: basic(keysOf[i]), "content-type": "application/json" },
        Math.round(CONNECTIONS / mocks.length),
      ),
    ),
  );
  const mocksMs = pids.reduce((sum, pid, i) => sum + processCpuMs(pid) - before.mocks[i], 0);
  const postgresMs = postgresCpuMs(postmaster) - before.postgres;
  const created = results.reduce((sum, r) => sum + r["2xx"], 0);
  const perThousand = (ms) => Math.round((ms / Math.max(1, created)) * 1000);
  return {
    rate: Math.round(results.reduce((sum, r) => sum + r["2xx"] / r.duration, 0)),
    bad: results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    // CPU ms per 1,000 payins: the mock processes, and PostgreSQL
    mocksCpu: perThousand(mocksMs),
    postgresCpu: perThousand(postgresMs),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const medianOf = (phases) => ({
  rate: median(phases.map((p) => p.rate)),
  bad: phases.reduce((sum, p) => sum + p.bad, 0),
  mocksCpu: median(phases.map((p) => p.mocksCpu)),
  postgresCpu: median(phases.map((p) => p.postgresCpu)),
});

const pg = await startPostgres();
const figures = {};
let postmaster;
try {
  postmaster = postmasterOf(pg.port);
  for (const n of [1, 3]) {
    const db = `${pg.url.replace(/\/postgres$/, "")}/postgres`;
    const probe = { path: "/payout?limit=1", headers: { authorization: basic(DEFAULT_KEYS) } };
    const mocks = [];
    for (let i = 0; i < n; i++) mocks.push(await startMock(["--store", db], probe));
    const own = [];
    for (const m of mocks)
      own.push(
        await (await fetch(`${m.url}/_mock/accounts`, { method: "POST", headers: ADMIN, body: "{}" })).json(),
      );
    const hot = [];
    const mine = [];
    for (let round = 0; round < ROUNDS; round++) {
      hot.push(
        await phase(
          mocks,
          mocks.map(() => DEFAULT_KEYS),
        ),
      );
      mine.push(await phase(mocks, own));
    }
    figures[n] = { hot: medianOf(hot), own: medianOf(mine) };
    for (const m of mocks) await stopMock(m);
    const c = new (await import("pg")).default.Client({ connectionString: db });
    await c.connect();
    await c.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    await c.end();
  }
} finally {
  await killAllMocks();
  await pg.stop();
}

const line = (label, f) =>
  `  ${label.padEnd(34)} ${String(f.rate).padStart(6)}/s  CPU per 1,000 payins: mocks ${f.mocksCpu} ms, PostgreSQL ${f.postgresCpu} ms${f.bad > 0 ? `  (${f.bad} not 2xx)` : ""}`;
console.log(
  `POST /payin on one PostgreSQL, median of ${ROUNDS} runs of ${SECONDS} s, ${CONNECTIONS} connections:`,
);
for (const n of [1, 3]) {
  console.log(line(`${n} process(es), one hot account`, figures[n].hot));
  console.log(line(`${n} process(es), an account each`, figures[n].own));
}
const ratio = (a, b) => (a / b).toFixed(2);
const cpu = (f) => f.mocksCpu + f.postgresCpu;
console.log(
  `3 processes / 1: throughput ${ratio(figures[3].hot.rate, figures[1].hot.rate)} (one account), ${ratio(figures[3].own.rate, figures[1].own.rate)} (an account each); CPU per payin ${ratio(cpu(figures[3].hot), cpu(figures[1].hot))} (one account), ${ratio(cpu(figures[3].own), cpu(figures[1].own))} (an account each)`,
);
mkdirSync(new URL("../test-results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("../test-results/shared-throughput-bench.json", import.meta.url),
  `${JSON.stringify({ seconds: SECONDS, rounds: ROUNDS, figures }, null, 2)}\n`,
);
