// Throughput of the mock in each store mode, as a ratio to the in-memory mode measured in the same run
// (bench, not a test; run after `pnpm build`): POST /payin on one process with its state in memory, in
// PGlite (--data-dir) and in PostgreSQL (--store), and on three processes sharing one PostgreSQL (the load
// spread over the three, all on the default account: its requests take turns on its row lock, whichever
// process serves them; bench/shared-throughput.mjs gives accounts of their own). Then the memory the
// embedded mode takes per payin against memory mode. Lists at size: bench/big-account.mjs.
// PostgreSQL is Debian's, started on loopback with a temporary data directory (scripts/services.mjs).
// Each mode's row also gives the CPU time per request of the mock processes and of PostgreSQL's
// (from /proc, on Linux): what the ratio costs, and on which side.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { startPostgres } from "../../../scripts/services.mjs";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const here = fileURLToPath(new URL(".", import.meta.url));
const { samplePayin } = await import("../dist/index.js");
const payin = JSON.stringify(samplePayin("PIX", { referenceId: "order-1" }));

async function start(mode, url, env = {}) {
  const child = spawn(process.execPath, ["--expose-gc", `${here}store-server.mjs`, mode, url ?? ""], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const line = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  return { child, info: JSON.parse(line.value) };
}

async function stop(server) {
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
}

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ pipelining: 1, duration: DURATION_S, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time (user and system) in µs, or NaN where /proc does not say. */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** The parent of a process, from /proc. */
function parentOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
  } catch {
    return -1;
  }
}

/** The CPU time of PostgreSQL's server and its backends (the children of `postmaster`), in µs. */
function postgresMicros(postmaster) {
  let sum = cpuMicros(postmaster);
  for (const entry of readdirSync("/proc"))
    if (/^\d+$/.test(entry) && parentOf(entry) === postmaster) sum += cpuMicros(entry) || 0;
  return sum;
}

let databases = 0;
async function database(server) {
  const name = `bench_${++databases}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return server.url.replace(/\/[^/]*$/, `/${name}`);
}

/**
 * POST /payin on the given servers at once, 50 connections split among them: requests per second, and
 * the CPU time per request of the mock processes and of PostgreSQL's.
 */
async function postPayins(servers) {
  const mockBefore = servers.reduce((sum, s) => sum + cpuMicros(s.child.pid), 0);
  const postgresBefore = postgresMicros(postmaster);
  const results = await Promise.all(
    servers.map((s) =>
      run({
        url: `${s.info.url}/payin`,
        method: "POST",
        connections: Math.round(50 / servers.length),
        headers: { "content-type": "application/json", authorization: servers[0].info.auth },
        body: payin,
      }),
    ),
  );
  const non2xx = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  if (non2xx > 0) throw new Error(`${non2xx} requests failed`);
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    rate: results.reduce((sum, r) => sum + r.requests.average, 0),
    mockMicros: (servers.reduce((sum, s) => sum + cpuMicros(s.child.pid), 0) - mockBefore) / total,
    postgresMicros: (postgresMicros(postmaster) - postgresBefore) / total,
  };
}

const postgres = await startPostgres();
// the server process: the parent of a session's backend
const postmaster = await (async () => {
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  const { rows } = await admin.query("SELECT pg_backend_pid() AS pid");
  const parent = parentOf(rows[0].pid);
  await admin.end();
  return parent;
})();
const rows = [];
try {
  const rates = {};
  for (const [name, launch] of [
    ["memory, 1 process", async () => [await start("memory")]],
    ["PGlite (--data-dir), 1 process", async () => [await start("pglite")]],
    ["PostgreSQL (--store), 1 process", async () => [await start("postgres", await database(postgres))]],
    [
      "PostgreSQL (--store), 3 processes",
      async () => {
        const url = await database(postgres);
        const servers = [];
        for (let i = 0; i < 3; i++) servers.push(await start("postgres", url));
        return servers;
      },
    ],
  ]) {
    const servers = await launch();
    let measured;
    try {
      measured = await postPayins(servers);
    } finally {
      for (const server of servers) await stop(server);
    }
    rates[name] = measured.rate;
    rows.push({
      mode: name,
      "POST /payin req/s": Math.round(rates[name]),
      "ratio to memory": (rates[name] / rates["memory, 1 process"]).toFixed(2),
      "mock CPU µs/req": Math.round(measured.mockMicros),
      "PostgreSQL CPU µs/req": name.startsWith("PostgreSQL") ? Math.round(measured.postgresMicros) : "",
    });
  }
  console.table(rows);

  const count = Number(process.env.BENCH_MEMORY_PAYINS ?? 5_000);
  const memory = {};
  for (const mode of ["memory", "pglite"]) {
    const server = await start(mode, undefined, { SEED_PAYINS: String(count) });
    memory[mode] = server.info.memory;
    await stop(server);
  }
  console.log(
    `memory after ${count} payins: memory mode process RSS ${(memory.memory.rss / 2 ** 20).toFixed(0)} MiB, heap ${(memory.memory.heapBytes / count).toFixed(0)} B per payin; ` +
      `embedded (PGlite) process RSS ${(memory.pglite.rss / 2 ** 20).toFixed(0)} MiB (PostgreSQL in WASM: its memory is outside the JS heap), heap ${(memory.pglite.heapBytes / count).toFixed(0)} B per payin`,
  );
} finally {
  await postgres.stop();
}
