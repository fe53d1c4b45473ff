// The mock processes of bench/big-account.mjs and bench/shared-throughput.mjs, and the clients that load
// them: `paykit-mock` from the build (bin/paykit-mock.js), each in a process group of its own
// (scripts/processes.mjs), so none outlives the bench however it ends.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { killGroup, spawnGroup, stopGroup } from "../../../scripts/processes.mjs";

const BIN = fileURLToPath(new URL("../bin/paykit-mock.js", import.meta.url));
export const ADMIN_TOKEN = "bench-admin-token";
export const DEFAULT_KEYS = { publicKey: "pk_test_benchdefault", secretKey: "sk_test_benchdefault" };
export const basic = (keys) => `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;
export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
/** How long a mock may take to listen and answer its probe (a start reads no records: seconds at most). */
const START_DEADLINE_MS = Number(process.env.BENCH_START_DEADLINE_MS ?? 120_000);

const running = new Set();

/**
 * Starts `paykit-mock` (`--manual`, the bench's admin token and default keys, then `args`); resolves
 * once it answers `probe` (a path and headers that must answer 200) with the times from spawn to its
 * "listening" line and to that first answer, in ms.
 */
export async function startMock(args, probe) {
  const started = performance.now();
  const child = spawnGroup(
    process.execPath,
    [
      BIN,
      "--port",
      "0",
      "--manual",
      "--admin-token",
      ADMIN_TOKEN,
      "--default-keys",
      `${DEFAULT_KEYS.publicKey}:${DEFAULT_KEYS.secretKey}`,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => killGroup(child), START_DEADLINE_MS);
  const first = await lines[Symbol.asyncIterator]().next();
  clearTimeout(timer);
  if (first.done) throw new Error(`paykit-mock did not start (${args.join(" ")}): ${stderr}`);
  lines.on("line", () => undefined); // keep reading, so its stdout never fills
  const listenedMs = performance.now() - started;
  const url = String(first.value).replace("Paykit mock listening on ", "");
  const mock = { child, pid: child.pid, url, listenedMs, stderr: () => stderr };
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const res = await fetch(`${url}${probe.path}`, { headers: probe.headers }).catch(() => null);
    const status = res?.status;
    await res?.arrayBuffer();
    if (status === 200) break;
    // 4xx is an answer, and the wrong one (a 503 or no answer yet may still turn into a 200)
    if (Date.now() > deadline || child.exitCode !== null || (status >= 400 && status < 500))
      throw new Error(`paykit-mock at ${url} did not answer ${probe.path} (last: ${status}): ${stderr}`);
    await sleep(20);
  }
  mock.firstAnswerMs = performance.now() - started;
  return mock;
}

/** Stops a mock with SIGTERM (its clean shutdown lets the requests under way finish), SIGKILL after 60 s. */
export const stopMock = (mock) => stopGroup(mock.child, { signal: "SIGTERM", graceMs: 60_000 });

/** SIGKILLs every mock still running (cleanup after a failure or Ctrl-C). */
export async function killAllMocks() {
  await Promise.all([...running].map((child) => stopGroup(child, { signal: "SIGKILL", graceMs: 1_000 })));
}

/** A process's resident memory now, in MiB (VmRSS), or null once it has exited. */
export function rssMiB(pid) {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `clients` loops per URL until `stop()`, each sending `request(url, client, n)` (a fetch) in turn;
 * records every request's start, end (performance.now() ms), URL and status (0: no answer).
 */
export function runClients(urls, clients, request, stop) {
  const log = [];
  const loop = async (url, client) => {
    for (let n = 0; !stop(); n++) {
      const start = performance.now();
      let status = 0;
      try {
        const res = await request(url, client, n);
        status = res.status;
        await res.arrayBuffer();
      } catch {
        await sleep(10); // a refused connection answers at once: do not spin
      }
      log.push({ url, start, end: performance.now(), status });
    }
  };
  const done = Promise.all(urls.flatMap((url) => Array.from({ length: clients }, (_, c) => loop(url, c))));
  return { log, done };
}

/** The `p`-th percentile (0-100) of `values`, nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
