// An account with a long history, served by a mock process that never saw it (bench, not a test; run
// after `pnpm build`; docs/decisions/sandbox-store.md): the database is the state, so a request reads the
// rows it answers or changes, and a list reads one page through an index, whatever the account holds.
//   node bench/big-account.mjs         BENCH_RECORDS=100000 by default (payins, payouts and deliveries each)
// On Debian's PostgreSQL (scripts/services.mjs), a first `paykit-mock --store` process makes two accounts
// and, in each, one payin (paid, its webhook delivered), one payout; it stops, and the rows are copied in
// SQL (INSERT … SELECT generate_series, as test/stores/big-account.test.ts grows its account) to
// BENCH_RECORDS of each kind in the big account and 1,000 in the small one. Then, with processes started
// fresh on the same store, each figure of the big account as a ratio to the small account's in the same
// run: the p50 and p99 of the first page of GET /payout?limit=10, GET /_mock/payins?limit=100 and
// GET /_mock/webhooks (BENCH_SAMPLES requests each, the two accounts in turn); the p99 of another account's
// POST /payin while the account's lists are read (BENCH_SECONDS per account); and the RSS of a process
// after its start and after BENCH_REQUESTS (10,000) mixed requests on the account (its lists, deeper pages,
// control pages of 20, payins read by id, payins created): memory follows requests, not history. Prints a table and writes
// test-results/big-account-bench.json (BENCH_JSON). Every process and data directory is removed at the end,
// on a failure and on Ctrl-C.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { startPostgres } from "../../../scripts/services.mjs";
import {
  ADMIN,
  basic,
  DEFAULT_KEYS,
  killAllMocks,
  percentile,
  rssMiB,
  sleep,
  startMock,
  stopMock,
} from "./mock-processes.mjs";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const SMALL = 1_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
/** Clients sending the mixed requests at once; readers and writers while another account's payins are timed. */
const CLIENTS = 8;
const READERS = 4;
const WRITERS = 2;
const here = dirname(fileURLToPath(import.meta.url));
const OUTPUT = resolve(process.env.BENCH_JSON ?? `${here}/../test-results/big-account-bench.json`);

const { samplePayin, samplePayout } = await import("../dist/index.js");
const log = (line) => console.log(`[big-account] ${line}`);
const json = { "content-type": "application/json" };
const merchant = (keys) => ({ authorization: basic(keys), ...json });
const probe = { path: "/payout?limit=1", headers: merchant(DEFAULT_KEYS) };

/** The seeded copies' ids: `<prefix>_00<tag><i, 23 digits>`, older than the ids the mock makes. */
const seededId = (prefix, tag, i) => `${prefix}_00${tag}${String(i).padStart(23, "0")}`;
const SEEDED_ID = (prefix) => `'${prefix}_00' || $3::text || lpad(i::text, 23, '0')`;

/**
 * Copies the account's one payin, its one payout and its first delivery (real records, made through the
 * API) `count` times each, with ids (tagged `tag`, a digit) and referenceIds of their own, and books the
 * copies in the account's row as if each had been made: its totals, its payout count by status.
 */
async function grow(db, accountId, count, tag) {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM paykit_payins WHERE account_id = $1)::int AS payins,
            (SELECT count(*) FROM paykit_payouts WHERE account_id = $1)::int AS payouts,
            (SELECT count(*) FROM paykit_deliveries WHERE account_id = $1)::int AS deliveries`,
    [accountId],
  );
  const made = rows[0];
  if (made.payins !== 1 || made.payouts !== 1 || made.deliveries < 1)
    throw new Error(`the account to grow holds ${JSON.stringify(made)}: one payin and payout, a delivery`);
  await db.query(
    `INSERT INTO paykit_payins (id, account_id, epoch, status, amount, three_ds_tx, record)
     SELECT ${SEEDED_ID("pi")}, t.account_id, t.epoch, t.status, t.amount, NULL,
            t.record || jsonb_build_object('id', ${SEEDED_ID("pi")}, 'referenceId', 'old-' || i)
       FROM paykit_payins t, generate_series(1, $2::int) AS i WHERE t.account_id = $1`,
    [accountId, count, tag],
  );
  await db.query(
    `INSERT INTO paykit_payouts (id, account_id, epoch, reference_id, status, amount, created_ms, record)
     SELECT ${SEEDED_ID("po")}, t.account_id, t.epoch, 'old-' || i, t.status, t.amount, t.created_ms - i,
            t.record || jsonb_build_object('id', ${SEEDED_ID("po")}, 'referenceId', 'old-' || i, 'createdAt', t.created_ms - i)
       FROM paykit_payouts t, generate_series(1, $2::int) AS i WHERE t.account_id = $1`,
    [accountId, count, tag],
  );
  await db.query(
    `INSERT INTO paykit_deliveries (id, account_id, epoch, resource_id, state, due_ms, record)
     SELECT ${SEEDED_ID("wh")}, t.account_id, t.epoch, ${SEEDED_ID("pi")}, t.state, NULL,
            t.record || jsonb_build_object('id', ${SEEDED_ID("wh")}, 'resourceId', ${SEEDED_ID("pi")})
       FROM (SELECT * FROM paykit_deliveries WHERE account_id = $1 ORDER BY seq LIMIT 1) t,
            generate_series(1, $2::int) AS i`,
    [accountId, count, tag],
  );
  // one payin and one payout made the totals: count + 1 of each make them count + 1 times over
  await db.query(
    `UPDATE paykit_accounts
        SET approved_net = approved_net * ($2::bigint + 1), reserved = reserved * ($2::bigint + 1),
            debited = debited * ($2::bigint + 1), in_flight = in_flight * ($2::bigint + 1),
            payout_count = payout_count + $2,
            payout_status_counts = coalesce((SELECT jsonb_object_agg(key, value::bigint * ($2::bigint + 1))
                                               FROM jsonb_each_text(payout_status_counts)), '{}')
      WHERE id = $1`,
    [accountId, count],
  );
}

/** One request; its time (ms), status and body text. */
async function timed(url, init) {
  const start = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  return { ms: performance.now() - start, status: res.status, body: text };
}

/** An autocannon run; its result. */
const cannon = (options) =>
  new Promise((done, fail) => autocannon(options, (error, result) => (error ? fail(error) : done(result))));

/** Runs `clients` loops, each sending `request(client, n)` until `stop()`; answers every request's time and status. */
async function loops(clients, request, stop) {
  const done = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; !stop(); n++) {
        const start = performance.now();
        const res = await request(client, n);
        await res.arrayBuffer();
        done.push({ ms: performance.now() - start, status: res.status });
      }
    }),
  );
  return done;
}

/** CPU time (ms) a process used, from /proc/<pid>/stat (utime + stime, in 10 ms clock ticks). */
function processCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const failed = (results, ok) => results.filter((r) => !ok.includes(r.status)).length;

let postgres;
let hook;
let db;
let cleaning;
const cleanup = () => {
  cleaning ??= (async () => {
    await killAllMocks();
    await db?.end().catch(() => undefined);
    hook?.close();
    await postgres?.stop();
  })();
  return cleaning;
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    console.error(`\n[big-account] ${signal}: stopping the mock processes and PostgreSQL`);
    cleanup().finally(() => process.exit(130));
  });
}

const started = performance.now();
const environment = {
  node: process.version,
  cpus: cpus().length,
  loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
  records: RECORDS,
  small: SMALL,
  samples: SAMPLES,
  seconds: SECONDS,
  requests: REQUESTS,
};
const figures = [];
/** A figure at both sizes, and its ratio (big / small). */
const figure = (name, unit, small, big) =>
  figures.push({ name, unit, small, big, ratio: Number((big / small).toFixed(2)) });

try {
  postgres = await startPostgres();
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  environment.postgres = (await admin.query("SHOW server_version")).rows[0].server_version;
  await admin.query("CREATE DATABASE sandbox");
  await admin.end();
  const store = ["--store", postgres.url.replace(/\/[^/]*$/, "/sandbox")];
  db = new pg.Client({ connectionString: store[1] });
  await db.connect();

  // The accounts, each with its first records made through the API by a process that then stops.
  hook = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise((ready) => hook.listen(0, "127.0.0.1", ready));
  const webhookUrl = `http://127.0.0.1:${hook.address().port}/hook`;
  const first = await startMock(store, probe);
  const open = async (balance) => {
    const res = await fetch(`${first.url}/_mock/accounts`, {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ balance }),
    });
    if (res.status !== 201) throw new Error(`POST /_mock/accounts answered ${res.status}`);
    return res.json();
  };
  const accounts = { big: await open(100_000_000_000), small: await open(100_000_000_000) };
  const other = await open(1_000_000);
  for (const keys of Object.values(accounts)) {
    const payin = await fetch(`${first.url}/payin`, {
      method: "POST",
      headers: merchant(keys),
      body: JSON.stringify(samplePayin("PIX", { webhookUrl })),
    });
    const payout = await fetch(`${first.url}/payout`, {
      method: "POST",
      headers: merchant(keys),
      body: JSON.stringify(samplePayout({ amount: 500 })),
    });
    const paid = await fetch(`${first.url}/_mock/payins/${(await payin.json()).id}/pay`, {
      method: "POST",
      headers: ADMIN,
    });
    const flushed = await fetch(`${first.url}/_mock/webhooks/flush?accountId=${keys.accountId}`, {
      method: "POST",
      headers: ADMIN,
    });
    await payout.arrayBuffer();
    await paid.arrayBuffer();
    await flushed.arrayBuffer();
    if (payin.status !== 201 || payout.status !== 201 || paid.status !== 200 || flushed.status !== 200)
      throw new Error(
        `the first records answered ${[payin, payout, paid, flushed].map((r) => r.status).join(", ")}`,
      );
  }
  await stopMock(first);

  const seeding = performance.now();
  await grow(db, accounts.big.accountId, RECORDS - 1, 1);
  await grow(db, accounts.small.accountId, SMALL - 1, 2);
  await db.query("ANALYZE");
  environment.seedMs = Math.round(performance.now() - seeding);
  log(
    `seeded ${RECORDS.toLocaleString("en")} and ${SMALL.toLocaleString("en")} payins, payouts and deliveries in ${environment.seedMs} ms`,
  );
  const sizes = { small: SMALL, big: RECORDS };
  const tags = { big: 1, small: 2 };
  const lists = (keys) => [
    ["GET /payout?limit=10", "/payout?limit=10", merchant(keys)],
    ["GET /_mock/payins?limit=100", `/_mock/payins?accountId=${keys.accountId}&limit=100`, ADMIN],
    ["GET /_mock/webhooks", `/_mock/webhooks?accountId=${keys.accountId}`, ADMIN],
  ];

  // A process that never saw either account: the first page of each list, the two accounts in turn.
  const cold = await startMock(store, probe);
  // its own warm-up on a third account, so that neither account's first request pays for it
  for (const [, path, headers] of lists(other)) await (await fetch(`${cold.url}${path}`, { headers })).text();
  const times = {};
  for (const size of ["small", "big"])
    times[size] = Object.fromEntries(lists(accounts[size]).map(([name]) => [name, []]));
  const firstTimes = { small: {}, big: {} };
  for (let n = 0; n < SAMPLES; n++) {
    for (const size of n % 2 === 0 ? ["small", "big"] : ["big", "small"]) {
      for (const [name, path, headers] of lists(accounts[size])) {
        const answer = await timed(`${cold.url}${path}`, { headers });
        if (answer.status !== 200)
          throw new Error(`${name} (${size}) answered ${answer.status}: ${answer.body.slice(0, 300)}`);
        if (n === 0) {
          firstTimes[size][name] = answer.ms;
          const body = JSON.parse(answer.body);
          if (name.startsWith("GET /payout") && body.meta?.total !== sizes[size])
            throw new Error(`${name} (${size}) counts ${body.meta?.total} payouts, not ${sizes[size]}`);
          if (!(body.data?.length > 0)) throw new Error(`${name} (${size}) answered no records`);
        }
        times[size][name].push(answer.ms);
      }
    }
  }
  for (const [name] of lists(accounts.big)) {
    for (const p of [50, 99])
      figure(
        `${name}: first page, p${p}`,
        "ms",
        percentile(times.small[name], p),
        percentile(times.big[name], p),
      );
  }
  figure(
    "the three lists' first requests (cold), summed",
    "ms",
    Object.values(firstTimes.small).reduce((a, b) => a + b, 0),
    Object.values(firstTimes.big).reduce((a, b) => a + b, 0),
  );
  const seeded = await timed(`${cold.url}/payin/${seededId("pi", tags.big, RECORDS - 1)}`, {
    headers: merchant(accounts.big),
  });
  if (seeded.status !== 200 || JSON.parse(seeded.body).referenceId !== `old-${RECORDS - 1}`)
    throw new Error(`the last seeded payin reads back as ${seeded.status} ${seeded.body.slice(0, 300)}`);

  // Another account's payins while one account's lists are read (small, big, big, small: half of
  // BENCH_SECONDS each, so a drift of the machine's load falls on both).
  const posts = { small: [], big: [] };
  let otherFailed = 0;
  for (const size of ["small", "big", "big", "small"]) {
    let stopped = false;
    const paths = lists(accounts[size]);
    const [reads, writes] = await Promise.all([
      cannon({
        url: cold.url,
        connections: READERS,
        duration: SECONDS / 2,
        requests: paths.map(([, path, headers]) => ({ method: "GET", path, headers })),
      }).finally(() => {
        stopped = true;
      }),
      loops(
        WRITERS,
        () =>
          fetch(`${cold.url}/payin`, {
            method: "POST",
            headers: merchant(other),
            body: JSON.stringify(samplePayin("PIX")),
          }),
        () => stopped,
      ),
    ]);
    otherFailed += reads.non2xx + reads.errors + reads.timeouts + failed(writes, [201]);
    posts[size].push(...writes.map((w) => w.ms));
  }
  if (otherFailed > 0) throw new Error(`${otherFailed} requests failed while another account's payins ran`);
  for (const p of [50, 99])
    figure(
      `another account's POST /payin while the lists are read, p${p}`,
      "ms",
      percentile(posts.small, p),
      percentile(posts.big, p),
    );
  environment.otherPayins = { small: posts.small.length, big: posts.big.length };
  await stopMock(cold);

  // Memory: a fresh process per account, after its start and after the mixed requests on its account.
  const rss = {};
  environment.mixed = {};
  for (const size of ["small", "big"]) {
    const keys = accounts[size];
    const mock = await startMock(store, probe);
    await sleep(500);
    const atStart = rssMiB(mock.pid);
    // two reads of a payin by id, its id changed at each request (setupRequest)
    let reads = 0;
    const seededPayin = (request) => {
      reads += 1;
      const i = 1 + ((reads * 7919) % (sizes[size] - 1));
      return { ...request, path: `/payin/${seededId("pi", tags[size], i)}` };
    };
    const own = merchant(keys);
    const cpuBefore = processCpuMs(mock.pid);
    const mixing = performance.now();
    const result = await cannon({
      url: mock.url,
      connections: CLIENTS,
      amount: REQUESTS,
      requests: [
        { method: "GET", path: "/payout?limit=10", headers: own },
        { method: "GET", path: "/payin", headers: own, setupRequest: seededPayin },
        { method: "GET", path: `/_mock/payins?accountId=${keys.accountId}&limit=20`, headers: ADMIN },
        { method: "GET", path: "/payout?limit=10&page=5", headers: own },
        { method: "GET", path: `/_mock/webhooks?accountId=${keys.accountId}`, headers: ADMIN },
        { method: "POST", path: "/payin", headers: own, body: JSON.stringify(samplePayin("PIX")) },
        { method: "GET", path: `/_mock/payouts?accountId=${keys.accountId}&limit=20`, headers: ADMIN },
        { method: "GET", path: "/payout?limit=10&status=PENDING", headers: own },
        { method: "GET", path: `/_mock/accounts/${keys.accountId}`, headers: ADMIN },
        { method: "GET", path: "/payin", headers: own, setupRequest: seededPayin },
      ],
    });
    const bad = result.non2xx + result.errors + result.timeouts;
    if (bad > 0 || result["2xx"] < REQUESTS)
      throw new Error(
        `${bad} of the mixed requests on the ${size} account failed (${result["2xx"]} answered 2xx)`,
      );
    rss[size] = { atStart, afterRequests: rssMiB(mock.pid) };
    const cpuMs = processCpuMs(mock.pid) - cpuBefore;
    environment.mixed[size] = { ms: Math.round(performance.now() - mixing), mockCpuMs: cpuMs };
    log(
      `${size} account: ${REQUESTS.toLocaleString("en")} mixed requests in ${environment.mixed[size].ms} ms, the mock's CPU ${cpuMs} ms; RSS ${atStart} then ${rss[size].afterRequests} MiB`,
    );
    await stopMock(mock);
  }
  figure("process RSS after start", "MiB", rss.small.atStart, rss.big.atStart);
  figure(
    `process RSS after ${REQUESTS.toLocaleString("en")} mixed requests`,
    "MiB",
    rss.small.afterRequests,
    rss.big.afterRequests,
  );
} finally {
  await cleanup();
}
environment.loadAverageAtEnd = loadavg().map((l) => Number(l.toFixed(2)));
environment.totalMs = Math.round(performance.now() - started);

const cell = (value, unit) => (unit === "ms" ? value.toFixed(1) : String(value));
const rows = [
  [
    "figure",
    `${SMALL.toLocaleString("en")} records`,
    `${RECORDS.toLocaleString("en")} records`,
    "big / small",
  ],
  ...figures.map((f) => [
    `${f.name} (${f.unit})`,
    cell(f.small, f.unit),
    cell(f.big, f.unit),
    f.ratio.toFixed(2),
  ]),
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
console.log("");
for (const r of rows)
  console.log(r.map((v, c) => (c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join("  "));
console.log(
  `Node ${environment.node}, PostgreSQL ${environment.postgres}, ${environment.cpus} cores, load average ${environment.loadAverageAtStart.join(" ")} at start, ${environment.loadAverageAtEnd.join(" ")} at end; ` +
    `${SAMPLES} requests per list and account, ${SECONDS} s of POST /payin, seeded in ${environment.seedMs} ms, ${(environment.totalMs / 1000).toFixed(0)} s in all`,
);
mkdirSync(dirname(OUTPUT), { recursive: true });
writeFileSync(
  OUTPUT,
  `${JSON.stringify({ bench: "big-account", at: new Date().toISOString(), environment, figures }, null, 2)}\n`,
);
console.log(`written: ${OUTPUT}`);
