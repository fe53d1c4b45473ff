// The SQL of a sandbox that many mock processes serve at once (`--store postgres://…`): each request
// locks the rows of its accounts for its transaction, compares their versions with the copies the
// process holds in memory, and bumps the version of every account it writes
// (docs/decisions/shared-sandbox-every-process-serves.md).
import type { SavedSandbox } from "../../domain/saved.js";
import { MIGRATION_LOCK } from "./migrations.js";
import type { OpenTransaction, SqlDatabase, SqlQueryable, SqlResult, SqlStatement } from "./sql-client.js";
import { SANDBOX_KEY, type SaveBatch, writeBatch } from "./state-store.js";

/** The versions of live accounts, and of the sandbox row, as a transaction sees them. */
export interface Versions {
  accounts: Map<string, number>;
  sandbox: number;
}

/** What the database raises when a transaction finds the schema migrated past what this process knows. */
const SCHEMA_MOVED = "paykit: the schema is newer than this process knows";

/**
 * The first statements of every shared-store transaction that may write: a shared hold on the
 * migration lock (a newer mock's migration waits for the transaction, and the transaction for a
 * migration under way), then, in a statement of its own (a statement's snapshot is taken when it
 * starts), a refusal when the schema is newer than `known`: an older process never writes rows a newer
 * one does not expect (see {@link isSchemaMoved}).
 */
export function schemaGuard(known: number): SqlStatement[] {
  return [
    { text: "SELECT pg_advisory_xact_lock_shared($1)", params: [MIGRATION_LOCK] },
    {
      text: "SELECT paykit_refuse((SELECT max(version) FROM paykit_schema_migrations) > $1, $2)",
      params: [known, SCHEMA_MOVED],
    },
  ];
}

/** Whether an error is the database refusing a transaction of a process that knows an older schema. */
export function isSchemaMoved(error: unknown): boolean {
  return (error as { message?: unknown } | null)?.message === SCHEMA_MOVED;
}

/**
 * Opens a transaction's work: the schema guard, then locks the live accounts among `ids` (in id
 * order, so two transactions never wait on each other in a circle), all in one round trip. Answers
 * their versions and the sandbox's. `skipLocked`: the accounts another transaction holds are left
 * out rather than waited for.
 */
export async function lockAccounts(
  tx: OpenTransaction,
  ids: readonly string[],
  known: number,
  options: { skipLocked?: boolean } = {},
): Promise<Versions> {
  const guard = schemaGuard(known);
  const results = await tx.batch([
    ...guard,
    { text: "SELECT version::float8 AS version FROM paykit_sandbox WHERE key = $1", params: [SANDBOX_KEY] },
    {
      text: `SELECT id, version::float8 AS version FROM paykit_accounts
              WHERE id = ANY($1::text[]) AND removed_at IS NULL ORDER BY id
              FOR UPDATE${options.skipLocked ? " SKIP LOCKED" : ""}`,
      params: [[...ids]],
    },
  ]);
  const sandbox = results[guard.length]?.rows[0]?.version;
  const accounts = new Map<string, number>();
  for (const row of (results[guard.length + 1]?.rows ?? []) as { id: string; version: unknown }[])
    accounts.set(row.id, Number(row.version));
  return { accounts, sandbox: sandbox === undefined ? 0 : Number(sandbox) };
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

/** What the database raises when a sandbox write finds the row at another version than expected. */
const SANDBOX_MOVED = "paykit: the sandbox row moved on";

/**
 * The statements of one request's (or one background change's) write: its rows, the version bump of
 * each account it wrote, and a sandbox that changed, written under the version it was read at
 * (`sandbox.expected`; a first save inserts it) or refused with an error. `versions` reads the new
 * versions from the statements' results. A shared store sends them with the COMMIT, in one round trip.
 */
export async function sharedWrite(
  batch: SaveBatch,
  accounts: readonly string[],
  sandbox: { expected: number } | null,
): Promise<{
  statements: SqlStatement[];
  versions(results: SqlResult<Record<string, unknown>>[]): Versions;
}> {
  const statements: SqlStatement[] = [];
  const collect: SqlQueryable = {
    async query(text, params) {
      statements.push(params === undefined ? { text } : { text, params });
      return { rows: [] };
    },
    async exec(text) {
      statements.push({ text });
    },
  };
  await writeBatch(collect, batch, { sandbox: false });
  // a sandbox reset hides every other account: each one's version moves, so no process serves its copy
  const bump = statements.length;
  if (batch.everything)
    statements.push({
      text: "UPDATE paykit_accounts SET version = version + 1 WHERE removed_at IS NULL OR id = ANY($1::text[]) RETURNING id, version::float8 AS version",
      params: [accounts],
    });
  else if (accounts.length > 0)
    statements.push({
      text: "UPDATE paykit_accounts SET version = version + 1 WHERE id = ANY($1::text[]) RETURNING id, version::float8 AS version",
      params: [accounts],
    });
  const sandboxAt = statements.length;
  if (sandbox !== null)
    statements.push({
      text: `WITH written AS (
         INSERT INTO paykit_sandbox (key, value, version) VALUES ($1, $2::jsonb, 1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, version = paykit_sandbox.version + 1
          WHERE paykit_sandbox.version = $3
         RETURNING version)
       SELECT (SELECT version::float8 FROM written) AS version,
              paykit_refuse(NOT EXISTS (SELECT 1 FROM written), $4) AS written`,
      params: [SANDBOX_KEY, JSON.stringify(batch.sandbox), sandbox.expected, SANDBOX_MOVED],
    });
  return {
    statements,
    versions(results) {
      const versions = new Map<string, number>();
      const bumped = sandboxAt > bump ? (results[bump]?.rows ?? []) : [];
      for (const row of bumped as { id: string; version: number }[])
        versions.set(row.id, Number(row.version));
      const written = sandbox === null ? undefined : results[sandboxAt]?.rows[0];
      return { accounts: versions, sandbox: written === undefined ? -1 : Number(written.version) };
    },
  };
}

/** Runs statements one at a time in the caller's transaction (where one round trip does not matter). */
export async function runEach(
  tx: SqlQueryable,
  statements: readonly SqlStatement[],
): Promise<SqlResult<Record<string, unknown>>[]> {
  const results: SqlResult<Record<string, unknown>>[] = [];
  for (const s of statements) results.push(await tx.query(s.text, s.params));
  return results;
}

/** Whether an error is the database refusing a sandbox write made at a version that moved on. */
export function isSandboxMoved(error: unknown): boolean {
  return (error as { message?: unknown } | null)?.message === SANDBOX_MOVED;
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
  const removed = rows.map((r) => r.id);
  if (removed.length > 0)
    // the PIX keys registered for them go with them (the directory is the sandbox's)
    await tx.query(
      `UPDATE paykit_sandbox
          SET value = jsonb_set(value, '{pixKeys}', coalesce(
                (SELECT jsonb_agg(k) FROM jsonb_array_elements(value->'pixKeys') k
                  WHERE coalesce(k->>'accountId', '') <> ALL($2::text[])), '[]'::jsonb)),
              version = version + 1
        WHERE key = $1`,
      [SANDBOX_KEY, removed],
    );
  return removed;
}

/**
 * How much longer than the receiver's timeout a claim on a delivery attempt holds: room for a slow
 * process to write the attempt's outcome. A process that dies (or stops) mid-attempt holds the attempt
 * for no longer; another sends it again after, under the same webhook-id.
 */
export const CLAIM_MARGIN_MS = 5_000;

/**
 * Claims one attempt of a delivery for `owner`, in a transaction of its own behind the schema guard:
 * answers true, or how long another owner's live claim still holds it (`heldMs`), or null when the
 * store's delivery moved on (settled, or a later attempt).
 */
export async function claimAttempt(
  tx: OpenTransaction,
  deliveryId: string,
  owner: string,
  cycleAttempts: number,
  known: number,
  leaseMs: number,
): Promise<true | { heldMs: number } | null> {
  const guard = schemaGuard(known);
  const results = await tx.batch(
    [
      ...guard,
      {
        text: `UPDATE paykit_deliveries SET lease_owner = $2, lease_until = now() + $4 * interval '1 millisecond'
                WHERE id = $1 AND cycle_attempts = $3
                  AND (state = 'pending' OR (duplicate AND $3 > 0))
                  AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $2)
                  -- a listener that polls another process takes the account's attempts through it
                  AND NOT EXISTS (SELECT 1 FROM paykit_listeners l WHERE l.account_id = paykit_deliveries.account_id
                                     AND l.owner <> $2 AND l.until > now())
                RETURNING id`,
        params: [deliveryId, owner, cycleAttempts, leaseMs],
      },
      {
        text: `SELECT greatest(
                  (SELECT extract(epoch FROM d.lease_until - now()) * 1000 WHERE d.lease_owner <> $3),
                  (SELECT extract(epoch FROM l.until - now()) * 1000 FROM paykit_listeners l
                    WHERE l.account_id = d.account_id AND l.owner <> $3 AND l.until > now()))::float8 AS held_ms
                 FROM paykit_deliveries d
                WHERE d.id = $1 AND (d.state = 'pending' OR (d.duplicate AND $2 > 0)) AND d.cycle_attempts = $2`,
        params: [deliveryId, cycleAttempts, owner],
      },
    ],
    { commit: true },
  );
  if ((results[guard.length]?.rows.length ?? 0) > 0) return true;
  const held = results[guard.length + 1]?.rows[0]?.held_ms;
  return held === undefined || held === null ? null : { heldMs: Math.max(0, Number(held)) };
}

/** Records that `owner` serves an account's listener until `leaseMs` from now (the database's clock). */
export async function holdListener(
  db: SqlDatabase,
  accountId: string,
  owner: string,
  leaseMs: number,
  known: number,
): Promise<void> {
  await guarded(db, known, {
    text: `INSERT INTO paykit_listeners (account_id, owner, until) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
           ON CONFLICT (account_id) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until`,
    params: [accountId, owner, leaseMs],
  });
}

/** Forgets `owner`'s listener of an account (one another process holds now stays). */
export async function dropListener(
  db: SqlDatabase,
  accountId: string,
  owner: string,
  known: number,
): Promise<void> {
  await guarded(db, known, {
    text: "DELETE FROM paykit_listeners WHERE account_id = $1 AND owner = $2",
    params: [accountId, owner],
  });
}

/** One statement in a transaction of its own, behind the schema guard, in one round trip. */
async function guarded(db: SqlDatabase, known: number, statement: SqlStatement): Promise<void> {
  const begin = db.begin;
  if (begin === undefined) throw new Error("a shared store needs transactions held across awaits");
  const tx = await begin.call(db);
  try {
    await tx.batch([...schemaGuard(known), statement], { commit: true });
  } finally {
    await tx.rollback();
  }
}

/**
 * Writes one attempt's outcome (the delivery as the attempt left it) under its account's lock, frees
 * the claim, lowers the account's due time if the delivery's retry comes first, bumps the account's
 * version and commits. Answers the account's version before and after, or null when the account is
 * gone (nothing is written then, and the transaction is left to roll back).
 */
export async function writeAttempt(
  tx: OpenTransaction,
  batch: SaveBatch,
  accountId: string,
  deliveryId: string,
  dueMs: number | null,
  known: number,
): Promise<{ before: number; after: number } | null> {
  const locked = await lockAccounts(tx, [accountId], known);
  const before = locked.accounts.get(accountId);
  if (before === undefined) return null;
  const { statements } = await sharedWrite(batch, [], null);
  statements.push(
    {
      text: "UPDATE paykit_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = $1",
      params: [deliveryId],
    },
    // only ever earlier: this copy may not know work another process added to the account
    {
      text: `UPDATE paykit_accounts SET version = version + 1,
            next_due_ms = CASE WHEN $2::bigint IS NULL THEN next_due_ms ELSE LEAST(coalesce(next_due_ms, $2::bigint), $2::bigint) END
      WHERE id = $1 RETURNING version::float8 AS version`,
      params: [accountId, dueMs === null ? null : Math.floor(dueMs)],
    },
  );
  const results = await tx.batch(statements, { commit: true });
  const after = results[results.length - 1]?.rows[0]?.version;
  return { before, after: after === undefined ? before + 1 : Number(after) };
}
