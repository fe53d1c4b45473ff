// Opens the embedded store a mock is started with (`--data-dir`): PGlite in that directory, migrated at
// start and held by one mock process at a time (a second one is refused with a message, never allowed
// to write beside the first). PostgreSQL (`--store`) is shared by any number of processes: see
// shared-store.ts.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { StatePersistence } from "../domain/persistence.js";
import type { AccountLoads } from "./account-loader.js";
import { Persister } from "./persister.js";
import { migrate } from "./sql/migrations.js";
import { openPglite, type SqlDatabase } from "./sql/sql-client.js";
import { SqlStateStore } from "./sql/state-store.js";

/**
 * Where a mock keeps its state: `"memory"` (the default: nothing to set up, gone when the process
 * ends), `{ dataDir }` (PGlite, PostgreSQL compiled to WASM, in that directory: survives restarts,
 * one machine, no server to install) or `{ url }` (a PostgreSQL server, `postgres://user@host:port/db`).
 */
export type MockStoreOption = "memory" | { dataDir: string } | { url: string };

/** An embedded store, open and held by this process. */
export interface DurableStore {
  readonly kind: "embedded";
  /** Where it is, for the start banner (a URL's password is never shown). */
  readonly description: string;
  /** What the engine is created with. */
  readonly persistence: StatePersistence;
  /** Batches committed so far. */
  readonly batches: number;
  /** Accounts read in on use, and taken out of memory again, so far. */
  readonly accountLoads: AccountLoads;
  /** Waits for the last save, releases the store and closes its database. Idempotent. */
  close(): Promise<void>;
}

/** How a durable store reads accounts on use. */
export interface StoreLoading {
  /** The default account's fixed public key (`--default-keys`): that account is read at start. */
  defaultPublicKey?: string;
  /** Records idle accounts may hold in memory together (`--cache-records`). @default 100000 */
  cacheRecords?: number;
  /** Read every account whole, the default one at start included (a retention limit counts records in memory). */
  wholeAccounts?: boolean;
}

/** How a durable store reads accounts on use, from an engine's options (its fixed default keys). */
export function storeLoading(options: {
  defaultAccount?: { publicKey?: string; secretKey?: string };
  maxRecords?: number;
}): StoreLoading {
  const fixed = options.defaultAccount;
  return {
    ...(fixed?.publicKey && fixed.secretKey ? { defaultPublicKey: fixed.publicKey } : {}),
    ...(options.maxRecords === undefined ? {} : { wholeAccounts: true }),
  };
}

/** Another mock process holds the data directory. */
export class StoreInUseError extends Error {
  override readonly name = "StoreInUseError";
}

/** Opens, locks, migrates and reads the embedded store of a data directory. */
export async function openDurableStore(
  option: { dataDir: string },
  onError: (error: unknown) => void = () => {},
  loading: StoreLoading = {},
): Promise<DurableStore> {
  const { defaultPublicKey, cacheRecords, wholeAccounts } = loading;
  const dir = resolve(option.dataDir);
  mkdirSync(dir, { recursive: true });
  const unlock = lockDirectory(dir);
  let db: SqlDatabase;
  try {
    db = await openPglite(join(dir, "pglite"));
  } catch (error) {
    unlock();
    throw error;
  }
  let persister: Persister;
  try {
    await migrate(db);
    const store = new SqlStateStore(db);
    // one process holds the directory: after a failed save it reads the committed state back itself
    // the sandbox and its default account now; every other account when a request needs it
    const start = () => store.loadStart(defaultPublicKey, { records: wholeAccounts ? true : "active" });
    persister = new Persister(store, await start(), onError, { reload: start }, store, {
      source: store,
      ...(cacheRecords === undefined ? {} : { cacheRecords }),
    });
  } catch (error) {
    await db.close().catch(() => {});
    unlock();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    kind: "embedded",
    description: `PGlite in ${dir}`,
    persistence: persister,
    get batches() {
      return persister.batches;
    },
    get accountLoads() {
      return persister.accountLoads;
    },
    close() {
      closing ??= (async () => {
        await persister.saved().catch(() => {});
        persister.stop();
        await db.close();
        unlock();
      })();
      return closing;
    },
  };
}

/**
 * Takes `paykit-mock.lock` in the directory for this process. A lock left by a process that is gone (a
 * `kill -9`) is taken over; one held by a live process is refused.
 */
function lockDirectory(dir: string): () => void {
  const file = join(dir, "paykit-mock.lock");
  if (heldDirectories.has(file))
    throw new StoreInUseError(
      `this process already serves ${dir}: one mock holds a data directory at a time`,
    );
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      heldDirectories.add(file);
      return () => {
        heldDirectories.delete(file);
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new StoreInUseError(
          `another paykit-mock process (pid ${holder}) is serving ${dir}: one process holds a data directory at a time`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new StoreInUseError(`could not take ${file}`);
}

const heldDirectories = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
