// The acceptance suites over the two SQL stores: the mock over node:http with its state in PGlite
// (`--data-dir`) or in PostgreSQL (`--store`). Each test starts from an emptied store on a database this
// test process keeps (PGlite's initdb costs seconds), and every unexpected error of the engine fails it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { removeOnExit } from "../../../scripts/processes.mjs";
import { sharedPostgresUrl } from "../../../tests/support/services.js";
import { SEED_PIX_KEYS } from "../src/domain/pix-directory.js";
import {
  type CreateEngineOptions,
  createEngine,
  createHttpControl,
  createMockServer,
  type MockEngine,
  type MockServer,
} from "../src/index.js";
import { pixKeyId } from "../src/stores/memory/memory-state.js";
import { migrate } from "../src/stores/sql/migrations.js";
import { openPglite, openPostgres, type SqlDatabase } from "../src/stores/sql/sql-client.js";
import { SqlStore } from "../src/stores/sql/sql-store.js";
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
  "paykit_deliveries",
  "paykit_payins",
  "paykit_payouts",
  "paykit_due",
  "paykit_faults",
  "paykit_listeners",
  "paykit_accounts",
];

/**
 * Empties the mock's tables and puts the sandbox row and the seeded PIX keys back. DELETE, not
 * TRUNCATE: the tables hold a test's few rows, and PGlite's TRUNCATE (new files for every table) cost
 * about 50 ms of a core per test, DELETE 1 ms.
 */
export async function emptyTables(db: SqlDatabase): Promise<void> {
  await db.exec(
    [
      ...TABLES.map((table) => `DELETE FROM ${table};`),
      "DELETE FROM paykit_pix_keys WHERE NOT seeded;",
      "UPDATE paykit_sandbox SET clock_offset_ms = 0, default_account_id = NULL, rate_limit = NULL, faults_armed = false;",
    ].join("\n"),
  );
}

/** A SQL store on a database the test process keeps open (closing the store leaves the database open). */
export async function storeOn(
  name: StoreName,
  onError?: (error: unknown) => void,
  options: { purgeAfterCommit?: boolean; keep?: boolean; now?: () => number } = {},
): Promise<SqlStore> {
  const { keep, ...storeOptions } = options;
  const db = await databaseFor(name);
  // `keep`: a second process on what the first one left
  if (!keep) await emptyTables(db);
  for (const entry of SEED_PIX_KEYS)
    await db.query(
      `INSERT INTO paykit_pix_keys (account_id, key_id, seeded, entry) VALUES ('', $1, true, $2::jsonb)
       ON CONFLICT (account_id, key_id) DO NOTHING`,
      [pixKeyId(entry), JSON.stringify(entry)],
    );
  return new SqlStore(db, {
    kind: name === "pglite" ? "embedded" : "shared",
    description: name,
    keepDatabase: true,
    ...storeOptions,
    ...(onError === undefined ? {} : { onError }),
  });
}

/** Starts the mock over node:http on an emptied durable store. */
export async function startDurableHarness(name: StoreName, options: CreateEngineOptions): Promise<Harness> {
  const errors: unknown[] = [];
  const onError = (error: unknown) => errors.push(error);
  const store = await storeOn(name, onError);
  const mock = await createMockServer({ ...options, sandboxStore: store, onError });
  return {
    name,
    base: mock.url,
    send: (path, init) => fetch(mock.url + path, init).catch(() => "dropped" as const),
    control: createHttpControl({ url: mock.url, adminToken: options.adminToken }),
    account: mock.account,
    async close() {
      try {
        expect(errors).toEqual([]);
      } finally {
        await mock.close();
      }
    },
  };
}

/**
 * An engine (no server) of the named kind: in memory, or with its state in a durable store emptied
 * first. Closing a durable one checks that the engine reported no unexpected error.
 */
export async function startEngine(
  kind: "memory" | StoreName,
  options: CreateEngineOptions,
): Promise<{ engine: MockEngine; close(): Promise<void> }> {
  if (kind === "memory") {
    const engine = createEngine(options);
    return { engine, close: async () => engine.close() };
  }
  const errors: unknown[] = [];
  const onError = (error: unknown) => {
    errors.push(error);
    options.onError?.(error);
  };
  // the engine's real clock is the store's too (a test that stops it stops both)
  const store = await storeOn(kind, onError, options.now ? { now: options.now } : {});
  const engine = createEngine({ ...options, sandboxStore: store, onError });
  await engine.ready;
  return {
    engine,
    async close() {
      try {
        expect(errors).toEqual([]);
      } finally {
        engine.close();
        await store.close();
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
  // a store keeps secret keys as hashes: each process is given the default account's keys, as a team's are
  const common = {
    ...options,
    defaultAccount: {
      publicKey: "pk_test_clusterharness0000001",
      secretKey: "sk_test_clusterharness00000000000001",
      ...options.defaultAccount,
    },
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
  const { second, errors, adminToken } = cluster;

  return {
    name: "cluster",
    base: second.url,
    send: (path, init) => fetch(second.url + path, init).catch(() => "dropped" as const),
    control: createHttpControl({ url: second.url, adminToken }),
    account: second.account,
    async close() {
      let kept = false;
      try {
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
