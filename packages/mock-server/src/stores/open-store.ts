// Opens the store a mock keeps its sandbox in (docs/decisions/sandbox-store.md): this process's memory
// (the default), PGlite in a data directory (`--data-dir`: held by one mock process at a time, a second
// one is refused with a message, never allowed to write beside the first), or PostgreSQL (`--store`:
// shared by any number of processes). The SQL stores are migrated at start.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SEED_PIX_KEYS } from "../domain/pix-directory.js";
import type { SandboxStore } from "../domain/repository.js";
import { pixKeyId } from "./memory/memory-state.js";
import { MemoryStore } from "./memory/memory-store.js";
import { MIGRATIONS, type Migration, migrate, SchemaTooNewError } from "./sql/migrations.js";
import { openPglite, openPostgres, type SqlDatabase, shownUrl } from "./sql/sql-client.js";
import { SqlStore } from "./sql/sql-store.js";

/**
 * Where a mock keeps its state: `"memory"` (the default: nothing to set up, gone when the process
 * ends), `{ dataDir }` (PGlite, PostgreSQL compiled to WASM, in that directory: survives restarts,
 * one machine, no server to install) or `{ url }` (a PostgreSQL server, `postgres://user@host:port/db`).
 */
export type MockStoreOption = "memory" | { dataDir: string } | { url: string };

/** Another mock process holds the data directory. */
export class StoreInUseError extends Error {
  override readonly name = "StoreInUseError";
}

/** How a store is opened. */
export interface OpenStoreOptions {
  onError?: (error: unknown) => void;
  now?: () => number;
  /** Where an outage's lines go (a shared store). */
  log?: (line: string) => void;
  /** The migrations this process knows (tests play a newer mock with one more). @default MIGRATIONS */
  migrations?: readonly Migration[];
  /**
   * How long PostgreSQL lets a transaction of this process sit idle before it ends the session (a
   * process stopped mid-request holds its account's lock no longer). @default 2000
   */
  idleInTransactionMs?: number;
  /** Transactions this process holds open at once. @default 16 */
  connections?: number;
}

/** Opens the store of `option`: memory, a data directory, or a PostgreSQL URL. */
export async function openSandboxStore(
  option: MockStoreOption,
  options: OpenStoreOptions = {},
): Promise<SandboxStore> {
  if (option === "memory") return new MemoryStore(options.now);
  if ("dataDir" in option) {
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
    return sqlStore(db, { kind: "embedded", description: `PGlite in ${dir}`, onClose: unlock }, options);
  }
  const idleInTransactionMs = options.idleInTransactionMs ?? 2000;
  const db = await openPostgres(option.url, { max: options.connections ?? 16, idleInTransactionMs });
  try {
    return await sqlStore(
      db,
      {
        kind: "shared",
        description: `PostgreSQL at ${shownUrl(option.url)}`,
        // a transaction waiting for its turn at an account's lock speaks four times per limit
        keepAliveMs: Math.max(1, Math.floor(idleInTransactionMs / 4)),
      },
      options,
    );
  } catch (error) {
    if (error instanceof SchemaTooNewError) throw error;
    // where, and why; never the URL's password (the driver's message holds none)
    throw new Error(
      `could not connect to the PostgreSQL store at ${shownUrl(option.url)}: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
}

async function sqlStore(
  db: SqlDatabase,
  base: { kind: "embedded" | "shared"; description: string; keepAliveMs?: number; onClose?: () => void },
  options: OpenStoreOptions,
): Promise<SqlStore> {
  try {
    const migrations = options.migrations ?? MIGRATIONS;
    await migrate(db, migrations);
    // the seeded PIX keys are rows, so that a registration may replace one and a reset bring it back
    for (const entry of SEED_PIX_KEYS)
      await db.query(
        `INSERT INTO paykit_pix_keys (account_id, key_id, seeded, entry) VALUES ('', $1, true, $2::jsonb)
         ON CONFLICT (account_id, key_id) DO UPDATE SET entry = EXCLUDED.entry, seeded = true WHERE paykit_pix_keys.seeded`,
        [pixKeyId(entry), JSON.stringify(entry)],
      );
  } catch (error) {
    await db.close().catch(() => {});
    base.onClose?.();
    throw error;
  }
  return new SqlStore(db, {
    ...base,
    knownVersion: Math.max(0, ...(options.migrations ?? MIGRATIONS).map((m) => m.version)),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
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
