// Benchmark of the payment-status endpoint across instances (run after `pnpm build`; prints figures and
// ratios to the in-process baseline, asserts nothing). Needs Debian's redis-server and PostgreSQL.
//   node bench/checkout.mjs   [BENCH_STREAMS=1000] [BENCH_CHECKOUT_ROUNDS=3] [BENCH_POLL_SECONDS=60]
//
// Each instance is its own process (test/checkout/instance-server.ts over the built dist/, run by tsx),
// against the real mock over HTTP behind a proxy that counts the reads of each payin.
// Also run by `pnpm bench` (bench/run.mjs) unless BENCH_CHECKOUT=0.
// 1. Fan-out: BENCH_STREAMS server-sent-event streams watch one payin on instance B; the mock pays it and
//    delivers the webhook to instance A, which calls `notify`. Latency = arrival on each stream − the
//    moment A called notify (both clocks are this machine's), over BENCH_CHECKOUT_ROUNDS rounds after one
//    uncounted warm-up round. Baseline: one instance with the default in-process store (the webhook and
//    the streams on the same instance).
// 2. Memory per open stream on B (RSS and heap after a forced GC, before and after opening the streams),
//    and the streams one instance would hold in 512 MB, extrapolated from that figure.
// 3. Upstream polls: BENCH_STREAMS subscribers of one payin split over two instances, no webhook, the
//    default poll schedule (2 s growing to 10 s), for BENCH_POLL_SECONDS; reads of that payin at the mock,
//    scaled to a minute. The memory store shares nothing, so there each instance polls for itself.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createMockServer, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { startPostgres, startRedis } from "../../../scripts/services.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const PACKAGE_DIR = join(here, "..");
const SCRIPT = join(PACKAGE_DIR, "test", "checkout", "instance-server.ts");
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_CHECKOUT_ROUNDS ?? 3);
const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 60);
const MiB = 1024 * 1024;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const children = new Set();
const closers = [];

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    try {
      process.kill(-child.pid, signal);
    } catch {
      clearTimeout(force);
      resolve();
    }
  });
}

/** A counting proxy in front of the mock: every GET of a payin, by id. */
async function startCountingProxy(target) {
  const reads = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      const id = /\/payin\/(pi_[A-Za-z0-9]+)$/.exec(new URL(req.url, "http://x").pathname)?.[1];
      if (req.method === "GET" && id) reads.set(id, (reads.get(id) ?? 0) + 1);
      const headers = { ...req.headers };
      for (const name of ["host", "connection", "content-length", "transfer-encoding"]) delete headers[name];
      try {
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(target + req.url, { method: req.method, headers, body });
        const out = Buffer.from(await answer.arrayBuffer());
        const copied = {};
        answer.headers.forEach((value, name) => {
          if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name))
            copied[name] = value;
        });
        res.writeHead(answer.status, copied).end(out);
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  server.keepAliveTimeout = 60_000;
  return { url: `http://127.0.0.1:${server.address().port}`, reads };
}

async function startInstance(mock, baseUrl, kind, storeUrl, pollMs, maxPollMs = pollMs) {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", SCRIPT], {
    cwd: PACKAGE_DIR,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PAYKIT_STATUS_STORE: kind,
      PAYKIT_STORE_URL: storeUrl,
      PAYKIT_POLL_MS: String(pollMs),
      PAYKIT_MAX_POLL_MS: String(maxPollMs),
      PAYKIT_PUBLIC_KEY: mock.account.publicKey,
      PAYKIT_SECRET_KEY: mock.account.secretKey,
      PAYKIT_WEBHOOK_SECRET: mock.account.webhookSecret,
      PAYKIT_BASE_URL: baseUrl,
    },
  });
  children.add(child);
  const log = [];
  child.stderr.on("data", (chunk) => log.push(String(chunk)));
  const notified = new Map();
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      const message = JSON.parse(line);
      if (message.port) resolve(message.port);
      if (message.notified) notified.set(message.notified, message.at);
    });
    child.once("exit", (code) => reject(new Error(`instance exited ${code}:\n${log.join("")}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, notified };
}

const stats = async (instance) => (await fetch(`${instance.url}/stats?gc=1`)).json();

/** Opens `n` SSE streams on `instance` for `payinId`; `arrivals[status][i]` is when stream i got `status`. */
async function openStreams(instance, payinId, n) {
  const arrivals = { PENDING: new Array(n), APPROVED: new Array(n) };
  const controllers = [];
  const open = async (index) => {
    const controller = new AbortController();
    controllers.push(controller);
    const response = await fetch(`${instance.url}/payment-status?id=${payinId}`, {
      headers: { accept: "text/event-stream", cookie: `order=${payinId}` },
      signal: controller.signal,
    });
    if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffer = "";
    (async () => {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const data = buffer
            .slice(0, end)
            .split("\n")
            .find((line) => line.startsWith("data: "));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          if (data) {
            const { status } = JSON.parse(data.slice(6));
            if (arrivals[status]) arrivals[status][index] ??= now();
          }
        }
      }
    })().catch(() => undefined);
  };
  for (let from = 0; from < n; from += 200) {
    await Promise.all(Array.from({ length: Math.min(200, n - from) }, (_, i) => open(from + i)));
  }
  const close = () => {
    for (const controller of controllers) controller.abort();
  };
  return { arrivals, close };
}

async function until(check, what, ms = 120_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(20);
  }
}

const received = (list) => list.filter((at) => at !== undefined).length;
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function fanOut(mock, paykit, baseUrl, setup) {
  const b = await startInstance(mock, baseUrl, setup.kind, setup.url, 60_000);
  const a = setup.kind === "memory" ? b : await startInstance(mock, baseUrl, setup.kind, setup.url, 60_000);
  const latencies = [];
  let memory = {};
  // Round 0 warms up both processes (JIT, connections): its latencies are not counted, but its memory is
  // (a fresh process, so the RSS before is the instance at rest and the delta is every stream's full cost).
  for (let round = 0; round <= ROUNDS; round++) {
    const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl: `${a.url}/webhooks` }));
    const before = await stats(b);
    const streams = await openStreams(b, payin.id, STREAMS);
    await until(() => received(streams.arrivals.PENDING) === STREAMS, "PENDING on every stream");
    const after = await stats(b);
    if (round === 0)
      memory = {
        baseRss: before.memory.rss,
        rss: (after.memory.rss - before.memory.rss) / STREAMS,
        heap: (after.memory.heapUsed - before.memory.heapUsed) / STREAMS,
      };
    await mock.control.payPayin(payin.id);
    await until(
      () => received(streams.arrivals.APPROVED) === STREAMS && a.notified.has(payin.id),
      "APPROVED on every stream",
    );
    const notifiedAt = a.notified.get(payin.id);
    if (round > 0) for (const at of streams.arrivals.APPROVED) latencies.push(at - notifiedAt);
    streams.close();
    await sleep(200);
  }
  await Promise.all([...new Set([a, b])].map((instance) => killGroup(instance.child, "SIGTERM")));
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), memory };
}

async function polls(mock, paykit, baseUrl, proxy, setup) {
  const instances = await Promise.all([
    startInstance(mock, baseUrl, setup.kind, setup.url, 2_000, 10_000),
    startInstance(mock, baseUrl, setup.kind, setup.url, 2_000, 10_000),
  ]);
  const payin = await paykit.payins.create(samplePayin("PIX"));
  const half = Math.ceil(STREAMS / 2);
  const streams = await Promise.all([
    openStreams(instances[0], payin.id, half),
    openStreams(instances[1], payin.id, STREAMS - half),
  ]);
  await until(
    () => streams.every((s) => received(s.arrivals.PENDING) === s.arrivals.PENDING.length),
    "PENDING on every polled stream",
  );
  const start = proxy.reads.get(payin.id) ?? 0;
  await sleep(POLL_SECONDS * 1000);
  const reads = (proxy.reads.get(payin.id) ?? 0) - start;
  for (const s of streams) s.close();
  await Promise.all(instances.map((instance) => killGroup(instance.child, "SIGTERM")));
  return (reads * 60) / POLL_SECONDS;
}

try {
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  closers.push(
    () => redis.stop(),
    () => postgres.stop(),
  );
  const mock = await createMockServer({ autoAdvance: false });
  closers.push(() => mock.close());
  const proxy = await startCountingProxy(mock.url);
  const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
  const setups = [
    { name: "memory (one instance, in-process)", kind: "memory", url: "" },
    { name: "Redis (node-redis), 2 instances", kind: "redis", url: redis.url },
    { name: "PostgreSQL, 2 instances", kind: "postgres", url: postgres.url },
  ];
  const fan = [];
  for (const setup of setups) fan.push(await fanOut(mock, paykit, proxy.url, setup));
  const polled = await Promise.all(setups.map((setup) => polls(mock, paykit, proxy.url, proxy, setup)));

  const base = fan[0];
  const ms = (value) => `${value.toFixed(1)} ms`;
  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  const rows = [
    [`notify → event on ${STREAMS} SSE streams (${ROUNDS} rounds)`, "p50 / p99 (ratio to in-process)"],
  ];
  setups.forEach((setup, i) => {
    const r = fan[i];
    rows.push([
      `  ${setup.name}`,
      `${ms(r.p50)} / ${ms(r.p99)} (${(r.p50 / base.p50).toFixed(2)}x / ${(r.p99 / base.p99).toFixed(2)}x)`,
    ]);
  });
  rows.push(["memory per open stream (instance B, after GC)", "RSS / heap"]);
  setups.forEach((setup, i) => {
    const { memory } = fan[i];
    // The larger of the two deltas: RSS moves in pages the heap may already hold, so it can read low.
    const fits = Math.floor((512 * MiB - memory.baseRss) / Math.max(memory.rss, memory.heap, 1));
    rows.push([
      `  ${setup.name}`,
      `${kib(memory.rss)} / ${kib(memory.heap)}; ~${fits.toLocaleString("en-US")} streams in 512 MB (extrapolated from the larger, ${(memory.baseRss / MiB).toFixed(0)} MB RSS at rest)`,
    ]);
  });
  rows.push([
    `upstream reads per payin per minute, ${STREAMS} subscribers, no webhooks`,
    `(${POLL_SECONDS} s measured)`,
  ]);
  setups.forEach((setup, i) => {
    const label = setup.kind === "memory" ? "memory, 2 instances (nothing shared)" : setup.name;
    rows.push([`  ${label}`, `${polled[i].toFixed(1)} (${(polled[i] / polled[0]).toFixed(2)}x)`]);
  });
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
} finally {
  await Promise.all([...children].map((child) => killGroup(child, "SIGTERM")));
  for (const close of closers.reverse()) await close().catch(() => undefined);
}
