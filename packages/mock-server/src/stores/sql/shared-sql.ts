// The SQL of a sandbox that many mock processes serve at once (`--store postgres://…`): each request
// locks the rows of its accounts for its transaction, compares their versions with the copies the
// process holds in memory, and bumps the version of every account it writes (docs/decisions.md,
// "Shared sandbox: every process serves every request").
import type { SavedSandbox } from "../../domain/saved.js";
import type { SqlQueryable } from "./sql-client.js";
import { SANDBOX_KEY, type SaveBatch, writeBatch } from "./state-store.js";

/** The versions of live accounts, and of the sandbox row, as a transaction sees them. */
export interface Versions {
  accounts: Map<string, number>;
  sandbox: number;
}

/**
 * Locks the live accounts among `ids` for the transaction (in id order, so two transactions never
 * wait on each other in a circle) and answers their versions and the sandbox's. `skipLocked`: the
 * accounts another transaction holds are left out rather than waited for.
 */
export async function lockAccounts(
  tx: SqlQueryable,
  ids: readonly string[],
  options: { skipLocked?: boolean } = {},
): Promise<Versions> {
  const accounts = new Map<string, number>();
  if (ids.length > 0) {
    const { rows } = await tx.query<{ id: string; version: number }>(
      `SELECT id, version::float8 AS version FROM paykit_accounts
        WHERE id = ANY($1::text[]) AND removed_at IS NULL ORDER BY id
        FOR UPDATE${options.skipLocked ? " SKIP LOCKED" : ""}`,
      [ids],
    );
    for (const row of rows) accounts.set(row.id, row.version);
  }
  return { accounts, sandbox: await sandboxVersion(tx) };
}

/** The versions of live accounts, without a lock (read before the accounts themselves). */
export async function accountVersions(db: SqlQueryable, ids: readonly string[]): Promise<Versions> {
  const accounts = new Map<string, number>();
  if (ids.length > 0) {
    const { rows } = await db.query<{ id: string; version: number }>(
      "SELECT id, version::float8 AS version FROM paykit_accounts WHERE id = ANY($1::text[]) AND removed_at IS NULL",
      [ids],
    );
    for (const row of rows) accounts.set(row.id, row.version);
  }
  return { accounts, sandbox: await sandboxVersion(db) };
}

/** The sandbox row's version (0 before the first save). */
export async function sandboxVersion(db: SqlQueryable): Promise<number> {
  const { rows } = await db.query<{ version: number }>(
    "SELECT version::float8 AS version FROM paykit_sandbox WHERE key = $1",
    [SANDBOX_KEY],
  );
  return rows[0]?.version ?? 0;
}

/** The sandbox row and its version, or null before the first save. */
export async function readSandbox(
  db: SqlQueryable,
): Promise<{ value: SavedSandbox; version: number } | null> {
  const { rows } = await db.query<{ value: SavedSandbox; version: number }>(
    "SELECT value, version::float8 AS version FROM paykit_sandbox WHERE key = $1",
    [SANDBOX_KEY],
  );
  return rows[0] ?? null;
}

/** The sandbox row moved on since this process read it: the request is refused and tried again. */
export class SandboxMovedError extends Error {
  override readonly name = "SandboxMovedError";
}

/**
 * Writes one request's (or one background change's) rows in its transaction and bumps the version
 * of each account it wrote; a sandbox that changed is written under the version it was read at
 * (`sandbox.expected`; a first save inserts it). Answers the new versions.
 */
export async function writeShared(
  tx: SqlQueryable,
  batch: SaveBatch,
  accounts: readonly string[],
  sandbox: { expected: number } | null,
): Promise<Versions> {
  await writeBatch(tx, batch, { sandbox: false });
  const versions = new Map<string, number>();
  // a sandbox reset hides every other account: each one's version moves, so no process serves its copy
  const bumped = batch.everything
    ? await tx.query<{ id: string; version: number }>(
        "UPDATE paykit_accounts SET version = version + 1 WHERE removed_at IS NULL OR id = ANY($1::text[]) RETURNING id, version::float8 AS version",
        [accounts],
      )
    : accounts.length === 0
      ? { rows: [] }
      : await tx.query<{ id: string; version: number }>(
          "UPDATE paykit_accounts SET version = version + 1 WHERE id = ANY($1::text[]) RETURNING id, version::float8 AS version",
          [accounts],
        );
  for (const row of bumped.rows) versions.set(row.id, row.version);
  let sandboxAt = -1;
  if (sandbox !== null) {
    const { rows } = await tx.query<{ version: number }>(
      `INSERT INTO paykit_sandbox (key, value, version) VALUES ($1, $2::jsonb, 1)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, version = paykit_sandbox.version + 1
        WHERE paykit_sandbox.version = $3
       RETURNING version::float8 AS version`,
      [SANDBOX_KEY, JSON.stringify(batch.sandbox), sandbox.expected],
    );
    const written = rows[0];
    if (written === undefined)
      throw new SandboxMovedError(
        "another mock process changed the sandbox (its clock or PIX keys) meanwhile",
      );
    sandboxAt = written.version;
  }
  return { accounts: versions, sandbox: sandboxAt };
}

/**
 * Removes, in the caller's transaction, the accounts among `ids` still unused for `retentionMs` on the
 * database's clock, each under its lock (one a request holds now is in use, and stays): hidden from
 * every reader at once, its public key freed, its version bumped so that no process serves its copy.
 * Answers the accounts removed; their rows go a batch at a time with the purge.
 */
export async function removeUnused(
  tx: SqlQueryable,
  ids: readonly string[],
  retentionMs: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE paykit_accounts SET removed_at = now(), public_key = 'removed:' || id, version = version + 1
      WHERE id IN (SELECT id FROM paykit_accounts
                    WHERE id = ANY($1::text[]) AND removed_at IS NULL
                      AND last_used_at < now() - $2 * interval '1 millisecond'
                    ORDER BY id FOR UPDATE SKIP LOCKED)
      RETURNING id`,
    [ids, retentionMs],
  );
  return rows.map((r) => r.id);
}
