// Benchmark of @paykit/node against raw fetch (run after `pnpm build`; prints ratios, asserts nothing).
//   pnpm --filter @paykit/node bench     [BENCH_CALLS=10000] [BENCH_COLD_RUNS=15]
//   BENCH_BASELINE=/path/to/another/dist/index.js  also times that build (an earlier commit) in the
//   same rounds and cold starts, to show what a change costs.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const distEntry = join(here, "..", "dist", "index.js");
const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const ROUNDS = 10;
const KEYS = { publicKey: "pk_test_bench", secretKey: "sk_test_bench" };

const { Paykit } = await import(pathToFileURL(distEntry).href);
const baselineEntry = process.env.BENCH_BASELINE;
const Baseline = baselineEntry ? (await import(pathToFileURL(baselineEntry).href)).Paykit : undefined;

function startServer() {
  const child = spawn(process.execPath, [join(here, "server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (chunk) => resolve({ port: Number(String(chunk).trim()), child }));
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const { port, child } = await startServer();
const baseUrl = `http://127.0.0.1:${port}`;
const url = `${baseUrl}/payin/pi_01JD0000000000000000000000`;
const authorization = `Basic ${btoa(`${KEYS.publicKey}:${KEYS.secretKey}`)}`;
const paykit = new Paykit({ ...KEYS, baseUrl });

// The same request the client sends, the way a careful hand-written integration would.
async function rawCall() {
  const response = await fetch(url, { headers: { authorization, accept: "application/json" } });
  if (!response.ok) throw new Error(`status ${response.status}`);
  return JSON.parse(await response.text());
}
// The floor for any client with per-attempt timeouts: the same call carrying an AbortSignal.
async function rawSignalCall() {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    const response = await fetch(url, {
      headers: { authorization, accept: "application/json" },
      signal: controller.signal,
    });
    if (!response.ok) throw new Error(`status ${response.status}`);
    return JSON.parse(await response.text());
  } finally {
    clearTimeout(timer);
  }
}
const clientCall = () => paykit.payins.retrieve("pi_01JD0000000000000000000000");
const baseline = Baseline ? new Baseline({ ...KEYS, baseUrl }) : undefined;
const baselineCall = () => baseline.payins.retrieve("pi_01JD0000000000000000000000");

async function timeCalls(call, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

// Warm up every path (JIT, keep-alive sockets), then alternate rounds so load spikes from other
// processes hit all sides alike; the ratio reported is the median of the per-round ratios.
await timeCalls(rawCall, 1_000);
await timeCalls(rawSignalCall, 1_000);
await timeCalls(clientCall, 1_000);
if (baseline) await timeCalls(baselineCall, 1_000);
const baselineRatios = [];
let rawMs = 0;
let rawSignalMs = 0;
let clientMs = 0;
const roundRatios = [];
const perRound = Math.ceil(CALLS / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  const raw = await timeCalls(rawCall, perRound);
  rawSignalMs += await timeCalls(rawSignalCall, perRound);
  const client = await timeCalls(clientCall, perRound);
  if (baseline) baselineRatios.push((await timeCalls(baselineCall, perRound)) / raw);
  rawMs += raw;
  clientMs += client;
  roundRatios.push(client / raw);
}
// The same calls with a tracer provider registered (sdk-trace-base, every span sampled and handed to
// a processor that drops it): what tracing costs per call when it is on. Measured last, because a
// registered provider is process-wide.
const { trace } = await import("@opentelemetry/api");
const { BasicTracerProvider, NoopSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }));
await timeCalls(clientCall, 1_000);
const tracedRatios = [];
for (let round = 0; round < ROUNDS; round++) {
  const untraced = await timeCalls(rawCall, perRound);
  const traced = await timeCalls(clientCall, perRound);
  tracedRatios.push(traced / untraced);
}
trace.disable();
child.kill();
const calls = perRound * ROUNDS;

// Cold start: a fresh node that imports the bundle and constructs a client, against `node -e 0`.
const coldScriptOf = (entry) =>
  `const { Paykit } = await import(${JSON.stringify(pathToFileURL(entry).href)}); new Paykit({ publicKey: "pk_test_a", secretKey: "sk_test_b", baseUrl: "http://127.0.0.1:1" });`;
const coldScript = coldScriptOf(distEntry);
function timeProcess(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
const bare = [];
const withClient = [];
const withBaseline = [];
timeProcess(["-e", "0"]);
for (let i = 0; i < COLD_RUNS; i++) {
  bare.push(timeProcess(["-e", "0"]));
  withClient.push(timeProcess(["--input-type=module", "-e", coldScript]));
  if (baselineEntry)
    withBaseline.push(timeProcess(["--input-type=module", "-e", coldScriptOf(baselineEntry)]));
}

const bundle = readFileSync(distEntry);
const rows = [
  ["calls (payins.retrieve, sequential)", String(calls)],
  ["raw fetch", `${rawMs.toFixed(0)} ms (${((rawMs * 1000) / calls).toFixed(1)} µs/call)`],
  [
    "raw fetch + AbortSignal (timeout floor)",
    `${rawSignalMs.toFixed(0)} ms (${(rawSignalMs / rawMs).toFixed(2)}x raw)`,
  ],
  ["@paykit/node", `${clientMs.toFixed(0)} ms (${((clientMs * 1000) / calls).toFixed(1)} µs/call)`],
  [
    "client / raw fetch (median of rounds)",
    `${median(roundRatios).toFixed(2)}x (target ≤ 1.25x; totals ${(clientMs / rawMs).toFixed(2)}x)`,
  ],
  [
    "with a tracer provider / raw fetch (median of rounds)",
    `${median(tracedRatios).toFixed(2)}x (2 spans and a traceparent per call; untraced ${median(roundRatios).toFixed(2)}x)`,
  ],
  ["cold start: node -e 0 (median)", `${median(bare).toFixed(1)} ms`],
  ["cold start: import + new Paykit (median)", `${median(withClient).toFixed(1)} ms`],
  ["cold start ratio", `${(median(withClient) / median(bare)).toFixed(2)}x (target ≤ 1.5x)`],
  [
    "bundle dist/index.js",
    `${(bundle.length / 1024).toFixed(1)} KiB, ${(gzipSync(bundle, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped`,
  ],
];
if (baseline) {
  rows.push(
    [
      "baseline build / raw fetch (median of rounds)",
      `${median(baselineRatios).toFixed(2)}x (${baselineEntry})`,
    ],
    ["cold start ratio, baseline build", `${(median(withBaseline) / median(bare)).toFixed(2)}x`],
  );
}
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
