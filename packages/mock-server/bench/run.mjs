// Throughput of the mock against a bare node:http server (bench, not a test). Run after `pnpm build`:
//   pnpm --filter @paykit/mock-server bench        (BENCH_ROUNDS=3, BENCH_SECONDS=5 by default)
// Each server runs in its own child process pinned to core 0, autocannon in this process on core 1.
// POST /payin is measured against a fresh mock (what a test suite starts), alternating with the bare
// server round by round, and the median ratio is reported; in the same rounds, a build of an earlier
// commit (bench/baseline.mjs: the mock before its store was rewritten, unless BENCH_BASELINE_REF or
// BENCH_BASELINE says otherwise) gives this build's ratio to it. GET /payout runs against a seeded mock.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { samplePayin } from "../dist/index.js";
import { baselineBuild } from "./baseline.mjs";
import { median, pin } from "./measure.mjs";

/** The last commit of main before the store's rewrite (issue 34) merged: the mock in memory as it was. */
const BEFORE_STORE_REWRITE = "5309d51";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const here = fileURLToPath(new URL(".", import.meta.url));

async function startServer(kind, ...args) {
  const child = spawn("taskset", ["-c", "0", process.execPath, `${here}server.mjs`, kind, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  return { child, info: JSON.parse(line.value) };
}

async function stop(server) {
  server.child.kill();
  await once(server.child, "exit");
}

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, pipelining: 1, duration: DURATION_S, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

// The package's own sample PIX request (what a merchant's test would send), with a fixed referenceId.
const payin = JSON.stringify(samplePayin("PIX", { referenceId: "order-1" }));

const pinned = pin(process.pid, 1);
const rows = [];
const summary = (name, r) => ({
  name,
  reqPerSec: Math.round(r.requests.average),
  p99Ms: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});

async function post(kind, ...args) {
  const server = await startServer(kind, ...args);
  const headers = { "content-type": "application/json" };
  if (server.info.auth) headers.authorization = server.info.auth;
  const result = await run({ url: `${server.info.url}/payin`, method: "POST", headers, body: payin });
  await stop(server);
  return result;
}

// This build against an earlier one, in the same rounds: the mock before the store was rewritten
// (issue 34's "memory mode must not get slower") unless BENCH_BASELINE_REF names another commit, or
// BENCH_BASELINE another build's dist/index.js; BENCH_BASELINE_REF=none skips it.
let baseline;
const baselineRef = process.env.BENCH_BASELINE_REF ?? BEFORE_STORE_REWRITE;
if (process.env.BENCH_BASELINE)
  baseline = { label: process.env.BENCH_BASELINE, entry: process.env.BENCH_BASELINE };
else if (baselineRef !== "none") {
  try {
    const built = baselineBuild(baselineRef);
    baseline = { label: `commit ${built.sha.slice(0, 7)}`, entry: built.entry };
  } catch (error) {
    console.log(
      `no baseline build of ${baselineRef} (${error.message.split("\n")[0]}): its ratio is not measured`,
    );
  }
}

const ratios = [];
const againstBaseline = [];
for (let round = 1; round <= ROUNDS; round++) {
  const bare = await post("bare");
  const mock = await post("mock");
  rows.push(summary(`#${round} bare node:http POST (parse + fixed PIX-size JSON)`, bare));
  rows.push(summary(`#${round} mock POST /payin (PIX), fresh mock`, mock));
  ratios.push(mock.requests.average / bare.requests.average);
  if (baseline !== undefined) {
    const before = await post("mock", baseline.entry);
    rows.push(summary(`#${round} baseline mock POST /payin (${baseline.label})`, before));
    againstBaseline.push(mock.requests.average / before.requests.average);
  }
}

const seeded = await startServer("mock-seeded");
const small = await run({
  url: `${seeded.info.url}/payout?limit=10`,
  headers: { authorization: seeded.info.small },
});
rows.push(summary("mock GET /payout?limit=10, 1,000 payouts", small));
const large = await run({
  url: `${seeded.info.url}/payout?limit=10`,
  headers: { authorization: seeded.info.large },
});
rows.push(summary("mock GET /payout?limit=10, 100,000 payouts", large));
await stop(seeded);

console.table(rows);
console.log(
  `pinned: server core 0, autocannon core 1 (${pinned ? "ok" : "taskset unavailable"}); ${DURATION_S} s each, 50 connections`,
);
console.log(
  `POST /payin mock/bare throughput per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)} (target >= 0.5)`,
);
if (baseline !== undefined)
  console.log(
    `POST /payin this build / ${baseline.label} throughput per round: ${againstBaseline.map((r) => r.toFixed(2)).join(", ")}; median ${median(againstBaseline).toFixed(2)} (target >= 0.95)`,
  );
console.log(
  `GET /payout page time 100,000 / 1,000 payouts (mean latency): ${(large.latency.mean / small.latency.mean).toFixed(2)} (target <= 2)`,
);
