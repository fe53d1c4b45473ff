// What the multi-process and kill -9 tests share: `paykit-mock` processes started from source, a
// PostgreSQL database of their own, a webhook receiver that records what it gets, a load of payouts and
// paid payins, and the check that nothing answered was lost.
import type { ChildProcess } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { spawnGroup } from "../../../../scripts/processes.mjs";
import { sharedPgliteTemplate, sharedPostgresUrl } from "../../../../tests/support/services.js";
import { createEngine, type MockEngine } from "../../src/http/engine.js";
import { createMockServer, type MockServer } from "../../src/index.js";
import { type OpenStoreOptions, openSandboxStore } from "../../src/stores/open-store.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { mockCli } from "../cli-bundle.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";

export const ADMIN_TOKEN = "admin-token-for-process-tests";
export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
/** The default account's opening balance. */
export const OPENING = 1_000_000;

/** Every process started, killed at the end of each test by {@link killAll}. */
const children: ChildProcess[] = [];

export function killAll(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}

/**
 * Starts `paykit-mock` with the given options and `keys` as its default account (and `env` over this
 * process's environment); answers its URL once it listens, and what it wrote to stderr so far.
 */
export async function startMockProcess(
  keys: { publicKey: string; secretKey: string },
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  await fromTemplate(args);
  const child = spawnGroup(
    process.execPath,
    [
      // the CLI from src/, bundled (cli-bundle.ts): a signal reaches the mock itself
      await mockCli(),
      "--port",
      "0",
      "--admin-token",
      ADMIN_TOKEN,
      "--default-keys",
      `${keys.publicKey}:${keys.secretKey}`,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
  );
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error(`paykit-mock did not start: ${stderr}`);
  return { child, url: String(first.value).replace("Paykit mock listening on ", ""), stderr: () => stderr };
}

/**
 * A `--data-dir` whose PGlite directory does not exist yet starts as a copy of the run's template, as the
 * test processes' own do (test/pglite-from-template.ts): the process then opens an existing directory
 * instead of running PGlite's initdb in WASM (~3 s of a core, up to 20 s on a loaded machine). What
 * initdb makes is what is copied, so what the process opens and writes is the same.
 */
async function fromTemplate(args: string[]): Promise<void> {
  const at = args.indexOf("--data-dir");
  const dir = at === -1 ? undefined : args[at + 1];
  if (dir === undefined) return;
  const pglite = join(dir, "pglite"); // where the CLI keeps PGlite in its data directory
  if (existsSync(pglite) && readdirSync(pglite).length > 0) return;
  cpSync(await sharedPgliteTemplate(), pglite, { recursive: true });
}

let databases = 0;
/** A new empty database on the test run's PostgreSQL server; answers its URL. */
export async function newDatabase(prefix: string): Promise<string> {
  const url = await sharedPostgresUrl();
  const name = `${prefix}_${process.pid}_${++databases}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.close();
  return url.replace(/\/[^/]*$/, `/${name}`);
}

/**
 * Two mock servers of this test process on a new PostgreSQL database (a shared sandbox without
 * automatic payout steps), put in `servers` for the test's cleanup; and the database's URL.
 */
export async function twoMockServers(
  prefix: string,
  servers: MockServer[],
  more: { maxRecords?: number } = {},
): Promise<{ a: MockServer; b: MockServer; url: string }> {
  const url = await newDatabase(prefix);
  // a store keeps secret keys as hashes: both processes are given the default account's keys
  const options = {
    ...more,
    adminToken: ADMIN_TOKEN,
    autoAdvance: false,
    store: { url },
    defaultAccount: {
      publicKey: "pk_test_twoprocesses000001",
      secretKey: "sk_test_twoprocesses0000000000000001",
    },
  } as const;
  const a = await createMockServer(options);
  servers.push(a);
  const b = await createMockServer(options);
  servers.push(b);
  return { a, b, url };
}

/** The engines {@link sharedEngine} opened, for {@link closeSharedEngines}. */
const engines: { engine: MockEngine; close(): Promise<void> }[] = [];

/**
 * A mock engine of this test process on the shared sandbox at `url` (the admin token, no automatic
 * payout steps), answering `Request`s in process; closed by {@link closeSharedEngines}.
 */
export async function sharedEngine(url: string, options: OpenStoreOptions = {}) {
  const engineOptions = { adminToken: ADMIN_TOKEN, sharedSandbox: true, autoAdvance: false };
  const store = await openSandboxStore({ url }, options);
  const engine = createEngine({ ...engineOptions, sandboxStore: store });
  await engine.ready;
  const opened = {
    engine,
    store,
    async close() {
      engine.close();
      await store.close();
    },
  };
  engines.push(opened);
  return opened;
}

/**
 * Opens an account on the store at `url` through a process of its own, closed again at once: the
 * processes under test then meet an account they never saw.
 */
export async function openAccount(
  url: string,
  settings: Record<string, unknown>,
): Promise<{ accountId: string; publicKey: string; secretKey: string }> {
  const creator = await sharedEngine(url);
  try {
    const res = await creator.engine.handle(
      new Request("http://mock.test/_mock/accounts", {
        method: "POST",
        headers: ADMIN,
        body: JSON.stringify(settings),
      }),
    );
    if (res.status !== 201) throw new Error(`could not open an account: ${await res.text()}`);
    return (await res.json()) as { accountId: string; publicKey: string; secretKey: string };
  } finally {
    await creator.close();
  }
}

/** Closes every engine {@link sharedEngine} opened (call it in `afterEach`). */
export async function closeSharedEngines(): Promise<void> {
  for (const opened of engines.splice(0)) await opened.close();
}

/** One delivery a receiver got. */
export interface Received {
  webhookId: string;
  id: string;
  status: string;
}

/** A webhook receiver that answers 200 and records each delivery. */
export async function webhookReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const event = JSON.parse(body) as { id: string; status: string };
      received.push({ webhookId: String(req.headers["webhook-id"]), id: event.id, status: event.status });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a load was answered: payouts created, payins paid, and how many rounds went through. */
export interface LoadOutcome {
  createdPayouts: Set<string>;
  paidPayins: Set<string>;
  answered: number;
  unavailable: number;
}

/**
 * Runs 30 clients against the given mock URLs (`targets(n)` picks client n's) until `stopped()`: each
 * sends a payout (referenceId from `referenceOf`), then a PIX payin with a webhook, then pays it over the
 * control API. Connections cut by a killed process are ignored; what was answered is recorded.
 */
export function runLoad(options: {
  keys: { publicKey: string; secretKey: string };
  target: (client: number) => string;
  referenceOf: (client: number, round: number) => string;
  amountOf: (client: number) => number;
  webhookUrl: string;
  stopped: () => boolean;
  /** Called with the URL of the process each time one of its answers arrives (any status). */
  onAnswer?: (url: string) => void;
}): { outcome: LoadOutcome; done: Promise<void> } {
  const outcome: LoadOutcome = {
    createdPayouts: new Set(),
    paidPayins: new Set(),
    answered: 0,
    unavailable: 0,
  };
  const headers = { authorization: basic(options.keys), "content-type": "application/json" };
  const client = async (n: number) => {
    for (let i = 0; !options.stopped(); i++) {
      const url = options.target(n);
      try {
        const payout = await fetch(`${url}/payout`, {
          method: "POST",
          headers,
          body: JSON.stringify(
            payoutBody({ referenceId: options.referenceOf(n, i), amount: options.amountOf(n) }),
          ),
        });
        options.onAnswer?.(url);
        if (payout.status === 201) outcome.createdPayouts.add(((await payout.json()) as { id: string }).id);
        else {
          if (payout.status === 503) outcome.unavailable += 1;
          await payout.arrayBuffer();
        }
        const payin = await fetch(`${url}/payin`, {
          method: "POST",
          headers,
          body: JSON.stringify(pixPayin({ webhookUrl: options.webhookUrl })),
        });
        options.onAnswer?.(url);
        if (payin.status !== 201) {
          await payin.arrayBuffer();
          continue;
        }
        const { id } = (await payin.json()) as { id: string };
        const paid = await fetch(`${url}/_mock/payins/${id}/pay`, { method: "POST", headers: ADMIN });
        options.onAnswer?.(url);
        if (paid.status === 200) outcome.paidPayins.add(id);
        await paid.arrayBuffer();
        outcome.answered += 1;
      } catch {
        // the connection died with a process
      }
    }
  };
  return { outcome, done: Promise.all(Array.from({ length: 30 }, (_, n) => client(n))).then(() => {}) };
}

/**
 * After a crash, through a mock at `url` (one that went on, or one started again): every payout and
 * paid payin answered is there, each referenceId once, the balance is what the payins credit and the
 * payouts debit, and every event reaches the receiver, with one webhook-id per payin and status.
 */
export async function expectNothingLost(
  url: string,
  keys: { publicKey: string; secretKey: string },
  outcome: LoadOutcome,
  received: Received[],
  /** How long the events may take to arrive (a delivery claimed by a killed process waits out its claim). */
  eventsTimeoutMs = 20_000,
): Promise<void> {
  const headers = { authorization: basic(keys) };
  const listed: { id: string; amount: number; referenceId: string }[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/payout?limit=100&page=${page}`, { headers });
    const body = (await res.json()) as { data: typeof listed; meta: { totalPages: number } };
    listed.push(...body.data);
    if (page >= body.meta.totalPages) break;
  }
  const ids = new Set(listed.map((p) => p.id));
  for (const id of outcome.createdPayouts) expect(ids.has(id), `payout ${id} answered 201`).toBe(true);
  expect(new Set(listed.map((p) => p.referenceId)).size).toBe(listed.length);

  const accounts = (await (await fetch(`${url}/_mock/accounts`, { headers: ADMIN })).json()) as {
    data: { accountId: string; publicKey: string; balance: { available: number; pending: number } }[];
  };
  const own = accounts.data.find((a) => a.publicKey === keys.publicKey);
  expect(own).toBeDefined();
  const payins = (
    (await (
      await fetch(`${url}/_mock/payins?accountId=${own?.accountId}&limit=1000`, { headers: ADMIN })
    ).json()) as { data: { id: string; status: string; netAmount: number | null }[] }
  ).data;
  expect(payins.length).toBeLessThan(1000);
  const credited = payins.reduce((sum, p) => sum + (p.status === "APPROVED" ? (p.netAmount ?? 0) : 0), 0);
  const debited = listed.reduce((sum, p) => sum + p.amount, 0);
  expect(own?.balance.available).toBe(OPENING + credited - debited);

  const approved = new Set(payins.filter((p) => p.status === "APPROVED").map((p) => p.id));
  for (const id of outcome.paidPayins) expect(approved.has(id), `payin ${id} answered paid`).toBe(true);
  await fetch(`${url}/_mock/webhooks/flush`, { method: "POST", headers: ADMIN });
  await expect
    .poll(() => new Set(received.filter((r) => r.status === "APPROVED").map((r) => r.id)).size, {
      timeout: eventsTimeoutMs,
    })
    .toBe(approved.size);
  const idsPerEvent = new Map<string, Set<string>>();
  for (const r of received) {
    const key = `${r.id}:${r.status}`;
    idsPerEvent.set(key, (idsPerEvent.get(key) ?? new Set()).add(r.webhookId));
  }
  for (const [event, webhookIds] of idsPerEvent) expect(webhookIds.size, event).toBe(1);
}

/**
 * The longest time within `[from, to]` without an answer: between two of the answers `at` (times in
 * ms, any order), or between an edge of the window and the answer nearest it.
 */
export function longestGap(at: readonly number[], from: number, to: number): number {
  const inside = at.filter((t) => t >= from && t <= to).sort((a, b) => a - b);
  let longest = 0;
  let last = from;
  for (const t of [...inside, to]) {
    longest = Math.max(longest, t - last);
    last = t;
  }
  return longest;
}

/**
 * Runs `paykit-mock` with `args` (and the admin token) to its exit, for a start that must fail:
 * answers its exit code and what it wrote; killed with the others by {@link killAll} if it hangs.
 */
export async function runMockToExit(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnGroup(
    process.execPath,
    [await mockCli(), "--port", "0", "--admin-token", ADMIN_TOKEN, ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", (exit) => resolve(exit)));
  return { code, stdout, stderr };
}

/**
 * Holds a mock process in SIGSTOP at a moment one of its PostgreSQL sessions has a transaction open
 * (a request of it locked its accounts and the database waits for its next statement): the worst
 * moment for a process to hang, as the rows it locked stay locked. Stops it and looks; while none is
 * open, lets it run a few milliseconds and tries again. Answers how many tries it took; the caller
 * sends SIGCONT.
 */
export async function stopMidTransaction(
  pid: number,
  databaseUrl: string,
  timeoutMs = 30_000,
): Promise<number> {
  const db = await openPostgres(databaseUrl, { max: 1 });
  try {
    const deadline = Date.now() + timeoutMs;
    for (let tries = 1; ; tries++) {
      process.kill(pid, "SIGSTOP");
      try {
        const { rows } = await db.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM pg_stat_activity
            WHERE client_port = ANY($1::int[]) AND state = 'idle in transaction'`,
          [localPorts(pid)],
        );
        if ((rows[0]?.open ?? 0) > 0) return tries;
      } catch (error) {
        process.kill(pid, "SIGCONT");
        throw error;
      }
      process.kill(pid, "SIGCONT");
      if (Date.now() > deadline) throw new Error(`process ${pid} had no transaction open in ${tries} tries`);
      await sleep(5 + Math.random() * 20);
    }
  } finally {
    await db.close();
  }
}

/** The local ports of a process's TCP sockets (its ends of its database connections among them). */
export function localPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket?.[1] !== undefined) inodes.add(socket[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = existsSync(`/proc/${pid}/net/${table}`)
      ? readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)
      : [];
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const port = fields[1]?.split(":")[1];
      if (fields[9] !== undefined && inodes.has(fields[9]) && port !== undefined)
        ports.push(Number.parseInt(port, 16));
    }
  }
  return ports;
}
