// The acceptance suites over the two durable stores: the mock over node:http with its state in PGlite
// (`--data-dir`) or in PostgreSQL (`--store`). Each test starts from an empty store; when it closes, the
// store is read back into a new engine and compared with the live one, so a change the engine forgot to
// save fails the test that made it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { removeOnExit } from "../../../scripts/processes.mjs";
import { sharedPostgresUrl } from "../../../tests/support/services.js";
import {
  type CreateEngineOptions,
  createEngine,
  createHttpControl,
  createMockServer,
  type MockControl,
  type MockEngine,
  type MockServer,
} from "../src/index.js";
import { Persister } from "../src/stores/persister.js";
import { migrate } from "../src/stores/sql/migrations.js";
import { openPglite, openPostgres, type SqlDatabase } from "../src/stores/sql/sql-client.js";
import { SqlStateStore } from "../src/stores/sql/state-store.js";
import type { Harness } from "./fixtures.js";

/** A durable store the acceptance suites run against. */
export type StoreName = "pglite" | "postgres";

// One database per engine and test process (a worker runs many files one after the other), each test
// on emptied tables; the PGlite directory goes when the process ends, however it ends (a worker the
// runner kills fires no "exit" event: those directories were left behind by the hundred).
const databases = new Map<StoreName, Promise<SqlDatabase>>();

/** A database of this test process's own on the named engine, migrated (made on first use). */
export function databaseFor(name: StoreName): Promise<SqlDatabase> {
  let db = databases.get(name);
  if (db === undefined) {
    db = (async () => {
      let opened: SqlDatabase;
      if (name === "pglite") {
        const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-acceptance-")));
        opened = await openPglite(dir);
      } else {
        const url = await sharedPostgresUrl();
        const dbName = `acceptance_${process.pid}_${Date.now().toString(36)}`;
        const admin = await openPostgres(url, { max: 1 });
        await admin.query(`CREATE DATABASE ${dbName}`);
        await admin.close();
        opened = await openPostgres(url.replace(/\/[^/]*$/, `/${dbName}`), { max: 4 });
      }
      await migrate(opened);
      return opened;
    })();
    databases.set(name, db);
  }
  return db;
}

/**
 * Opens the process's database of a durable kind ahead of a file's tests, in a `beforeAll` with room for
 * PGlite's initdb on a loaded machine (~2.5 s quiet, ~20 s seen on CI); a no-op for the other kinds.
 */
export async function warmStore(kind: string): Promise<void> {
  if (kind === "pglite" || kind === "postgres" || kind === "cluster")
    await databaseFor(kind === "pglite" ? "pglite" : "postgres");
}

export const TABLES = [
  "paykit_delivery_attempts",
  "paykit_deliveries",
  "paykit_payins",
  "paykit_payouts",
  "paykit_balances",
  "paykit_ledger",
  "paykit_faults",
  "paykit_scheduled",
  "paykit_accounts",
  "paykit_sandbox",
];

/**
 * Empties the mock's tables, children first. DELETE, not TRUNCATE: the tables hold a test's few rows,
 * and PGlite's TRUNCATE (new files for every table) cost about 50 ms of a core per test, DELETE 1 ms.
 */
export async function emptyTables(db: SqlDatabase): Promise<void> {
  await db.exec(TABLES.map((table) => `DELETE FROM ${table};`).join("\n"));
}

/** Starts the mock over node:http on an emptied durable store. */
export async function startDurableHarness(name: StoreName, options: CreateEngineOptions): Promise<Harness> {
  const db = await databaseFor(name);
  await emptyTables(db);
  const store = new SqlStateStore(db);
  const errors: unknown[] = [];
  const persister = new Persister(store, null, (error) => errors.push(error));
  const mock = await createMockServer({ ...options, persistence: persister });
  await persister.saved();
  return {
    name,
    base: mock.url,
    send: (path, init) => fetch(mock.url + path, init).catch(() => "dropped" as const),
    control: createHttpControl({ url: mock.url, adminToken: options.adminToken }),
    account: mock.account,
    async close() {
      try {
        await expectSavedAsLive(mock.engine.control, store, options);
        expect(errors).toEqual([]);
      } finally {
        await mock.close();
        await persister.saved().catch(() => {});
        persister.stop();
      }
    },
  };
}

/**
 * An engine (no server) of the named kind: in memory, or with its state in a durable store emptied
 * first. Closing a durable one checks that the store holds what the engine shows.
 */
export async function startEngine(
  kind: "memory" | StoreName,
  options: CreateEngineOptions,
): Promise<{ engine: MockEngine; close(): Promise<void> }> {
  if (kind === "memory") {
    const engine = createEngine(options);
    return { engine, close: async () => engine.close() };
  }
  const db = await databaseFor(kind);
  await emptyTables(db);
  const store = new SqlStateStore(db);
  const errors: unknown[] = [];
  const persister = new Persister(store, null, (error) => errors.push(error));
  const engine = createEngine({ ...options, persistence: persister });
  await persister.saved();
  return {
    engine,
    async close() {
      try {
        await expectSavedAsLive(engine.control, store, options);
        expect(errors).toEqual([]);
      } finally {
        engine.close();
        await persister.saved().catch(() => {});
        persister.stop();
      }
    },
  };
}

/** Two mock servers on one PostgreSQL store, and what they reported as errors. */
interface Cluster {
  db: SqlDatabase;
  first: MockServer;
  second: MockServer;
  errors: unknown[];
  adminToken: string;
  options: string;
}

/** The cluster the current file's tests share, when it asked for that (see {@link shareClusters}). */
let shared: { cluster: Promise<Cluster> | null } | null = null;

/**
 * From now on (true) the cluster harnesses of one file share their two servers: each test starts from
 * a reset sandbox (`POST /_mock/reset`, as a team resets its sandbox between runs) rather than from an
 * emptied database and two new processes, whose start took most of a test's time. False closes them.
 */
export async function shareClusters(on: boolean): Promise<void> {
  const current = shared;
  shared = on ? { cluster: null } : null;
  const cluster = await current?.cluster?.catch(() => null);
  if (cluster) await closeCluster(cluster);
}

async function closeCluster(cluster: Cluster): Promise<void> {
  await cluster.second.close();
  await cluster.first.close();
}

async function openCluster(options: CreateEngineOptions): Promise<Cluster> {
  const db = await databaseFor("postgres");
  await emptyTables(db);
  const url = (await sharedPostgresUrl()).replace(/\/[^/]*$/, `/${await databaseName(db)}`);
  const errors: unknown[] = [];
  const adminToken = options.adminToken ?? "cluster-harness-admin-token";
  const common = {
    ...options,
    adminToken,
    sharedSandbox: options.sharedSandbox ?? false,
    store: { url },
    onError: (error: unknown) => errors.push(error),
  };
  const first = await createMockServer(common);
  const second = await createMockServer(common);
  return { db, first, second, errors, adminToken, options: JSON.stringify(options) };
}

/**
 * Two mock servers on one PostgreSQL database, equal (each request is a transaction of its own), the
 * tests talking to the second: the first takes its share of the due work and the deliveries of the
 * same rows. At the end the store is compared with what the first one reads of it.
 */
export async function startClusterHarness(options: CreateEngineOptions): Promise<Harness> {
  const sharing = shared;
  let cluster: Cluster;
  const reused = sharing?.cluster ? await sharing.cluster.catch(() => null) : null;
  if (reused && reused.options === JSON.stringify(options)) cluster = reused;
  else {
    if (reused) await closeCluster(reused);
    const opening = openCluster(options);
    if (sharing) sharing.cluster = opening;
    cluster = await opening;
  }
  const { db, first, second, errors, adminToken } = cluster;

  return {
    name: "cluster",
    base: second.url,
    send: (path, init) => fetch(second.url + path, init).catch(() => "dropped" as const),
    control: createHttpControl({ url: second.url, adminToken }),
    account: second.account,
    async close() {
      let kept = false;
      try {
        await expectSavedAsLive(first.engine.control, new SqlStateStore(db), options);
        expect(errors).toEqual([]);
        if (sharing !== null && sharing === shared) {
          // the next test starts from the sandbox's start state, on the same two processes
          await second.control.reset();
          kept = true;
        }
      } finally {
        errors.length = 0;
        if (!kept) {
          if (sharing?.cluster) sharing.cluster = null;
          await closeCluster(cluster);
        }
      }
    },
  };
}

export async function databaseName(db: SqlDatabase): Promise<string> {
  const { rows } = await db.query<{ name: string }>("SELECT current_database() AS name");
  return rows[0]!.name;
}

/**
 * What the control API shows of the state, in the fields a restart must keep. A delivery still
 * pending may gain attempts meanwhile: its attempts are compared once it settled.
 */
async function viewOf(control: MockControl) {
  // Every page of each list (a list answers one page of at most 1000).
  const all = async <T>(entries: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const entry of entries) out.push(entry);
    return out;
  };
  const accounts = await all(control.listAll("accounts"));
  const ids = accounts.map((a) => a.accountId).sort();
  const perAccount = await Promise.all(
    ids.map(async (id) => ({
      id,
      clock: Date.parse((await control.accountClock(id)).now),
      payins: await all(control.listAll("payins", { accountId: id, limit: 1000 })),
      payouts: await all(control.listAll("payouts", { accountId: id, limit: 1000 })),
      pixKeys: await all(control.listAll("pixKeys", { accountId: id, limit: 1000 })),
    })),
  );
  const webhooks = (await all(control.listAll("webhooks", { limit: 1000 }))).map((d) => ({
    id: d.id,
    webhookId: d.webhookId,
    accountId: d.accountId,
    resource: d.resource,
    resourceId: d.resourceId,
    status: d.status,
    url: d.url,
    settled: d.state === "pending" ? null : { state: d.state, attempts: d.attempts },
  }));
  return {
    clock: Date.parse((await control.clock()).now),
    accounts: accounts.sort((a, b) => a.accountId.localeCompare(b.accountId)),
    perAccount,
    webhooks: webhooks.sort((a, b) => a.id.localeCompare(b.id)),
  };
}

type View = Awaited<ReturnType<typeof viewOf>>;

// Clocks run on between two reads: equal within this much.
const CLOCK_SLACK_MS = 5_000;

/**
 * `view` with each clock replaced by the live view's when the two are within the slack, so that the
 * deep comparison shows a clock only when it really differs. (Rounding both to buckets of the slack
 * failed whenever two readings a millisecond apart fell on either side of a bucket's edge.)
 */
function comparable(view: View, live: View = view) {
  const near = (clock: number, liveClock: number | undefined) =>
    liveClock !== undefined && Math.abs(clock - liveClock) < CLOCK_SLACK_MS ? liveClock : clock;
  return {
    ...view,
    clock: near(view.clock, live.clock),
    perAccount: view.perAccount.map((a, i) => ({ ...a, clock: near(a.clock, live.perAccount[i]?.clock) })),
  };
}

/**
 * JSON with every object's keys sorted, and without undefined fields (as `toEqual` compares). A store
 * may give an object's keys back in another order (PostgreSQL's jsonb sorts them): with plain
 * `JSON.stringify` the two views never matched, and every close spent its five rounds and their pauses
 * before the deep comparison passed (about 0.3 s per durable test, 90 s of the suite).
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    field !== null && typeof field === "object" && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );
}

async function expectSavedAsLive(live: MockControl, store: SqlStateStore, options: CreateEngineOptions) {
  let last: { live: View; saved: View } | undefined;
  // timers (automatic payout steps, webhook retries) may move the live state between two reads
  for (let round = 0; round < 5; round++) {
    const liveView = await viewOf(live);
    const saved = await store.load();
    expect(saved, "the store holds the sandbox").not.toBeNull();
    const reader = new Persister({ write: async () => {} }, saved, () => {});
    const engine = createEngine({
      ...options,
      // nothing moves while the saved state is read: no payout step, no delivery answered
      advanceIntervalMs: 3_600_000,
      fetch: () => new Promise(() => {}),
      persistence: reader,
    });
    try {
      const savedView = await viewOf(engine.control);
      last = { live: liveView, saved: savedView };
      if (canonical(comparable(liveView)) === canonical(comparable(savedView, liveView))) return;
    } finally {
      engine.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (last)
    expect(comparable(last.saved, last.live), "the state read back from the store").toEqual(
      comparable(last.live),
    );
}
