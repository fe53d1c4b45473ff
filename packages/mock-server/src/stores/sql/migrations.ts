// The SQL stores' schema, as numbered migrations applied at start in one transaction under an advisory
// lock, so mock processes starting together on one database migrate it once. A database whose schema is
// newer than this mock knows is refused: an older mock must not write rows it does not understand. That
// holds for a process already running when a newer one migrates the database too: it checks again on
// every new connection, before it leads, on its heartbeat and in every write (`guardWrite`).
import type { SqlDatabase, SqlQueryable } from "./sql-client.js";

/** One step of the schema. Never edit a released one: add the next. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Every migration, in order. Records are kept whole as JSON (`record`), beside the columns the
 * store filters, sorts, constrains or leases on; money is BIGINT cents.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "accounts, payins, payouts, ledger, webhook outbox, faults, scheduled work",
    sql: `
CREATE TABLE paykit_sandbox (
  key TEXT PRIMARY KEY,
  value JSONB NOT NULL
);
CREATE TABLE paykit_accounts (
  id TEXT PRIMARY KEY,
  public_key TEXT NOT NULL UNIQUE,
  settings JSONB NOT NULL,
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE paykit_payins (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  reference_id TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  status TEXT NOT NULL,
  amount BIGINT NOT NULL CHECK (amount > 0),
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  record JSONB NOT NULL
);
CREATE INDEX paykit_payins_by_account ON paykit_payins (account_id, created_at DESC, id DESC);
CREATE TABLE paykit_payouts (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  reference_id TEXT NOT NULL,
  status TEXT NOT NULL,
  amount BIGINT NOT NULL CHECK (amount > 0),
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  record JSONB NOT NULL,
  CONSTRAINT paykit_payouts_reference_unique UNIQUE (account_id, reference_id)
);
CREATE INDEX paykit_payouts_by_account ON paykit_payouts (account_id, created_at DESC, id DESC);
CREATE INDEX paykit_payouts_by_status ON paykit_payouts (account_id, status, created_at DESC);
CREATE TABLE paykit_ledger (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  resource_id TEXT,
  available_delta BIGINT NOT NULL DEFAULT 0,
  reserved_delta BIGINT NOT NULL DEFAULT 0,
  pending_delta BIGINT NOT NULL DEFAULT 0,
  at TIMESTAMPTZ NOT NULL
);
CREATE INDEX paykit_ledger_by_account ON paykit_ledger (account_id, id);
CREATE TABLE paykit_balances (
  account_id TEXT PRIMARY KEY REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  available BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
  reserved BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  pending BIGINT NOT NULL DEFAULT 0 CHECK (pending >= 0)
);
CREATE TABLE paykit_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  account_id TEXT NOT NULL REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  resource TEXT NOT NULL CHECK (resource IN ('payin', 'payout')),
  resource_id TEXT NOT NULL,
  status TEXT NOT NULL,
  url TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  payload TEXT NOT NULL,
  traceparent TEXT,
  cycle_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ,
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX paykit_deliveries_due ON paykit_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX paykit_deliveries_by_account ON paykit_deliveries (account_id, created_at);
CREATE TABLE paykit_delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES paykit_deliveries (id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  at TIMESTAMPTZ NOT NULL,
  status_code INTEGER,
  error TEXT,
  PRIMARY KEY (delivery_id, n)
);
CREATE TABLE paykit_faults (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  method TEXT,
  path TEXT NOT NULL,
  spec JSONB NOT NULL,
  remaining INTEGER NOT NULL CHECK (remaining >= 0)
);
CREATE TABLE paykit_scheduled (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES paykit_accounts (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  due_at TIMESTAMPTZ NOT NULL,
  lease_owner TEXT,
  lease_until TIMESTAMPTZ,
  UNIQUE (kind, resource_id)
);
CREATE INDEX paykit_scheduled_due ON paykit_scheduled (due_at);
`,
  },
  {
    version: 2,
    name: "deliveries keep their duplicate-delivery test mode",
    sql: `
ALTER TABLE paykit_deliveries ADD COLUMN duplicate BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE paykit_deliveries ADD COLUMN retry_at_ms BIGINT;
`,
  },
  {
    version: 3,
    name: "the answers of forwarded requests, so a re-sent one is never run twice",
    // status NULL: the request's changes may be committed and its answer is not known yet
    sql: `
CREATE TABLE paykit_forwarded (
  id TEXT PRIMARY KEY,
  status INTEGER,
  headers TEXT,
  body BYTEA,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX paykit_forwarded_by_age ON paykit_forwarded (created_at);
`,
  },
  {
    version: 4,
    name: "retention and resets in batches: last use, removed accounts, epochs of an account's records",
    // last_used_at is on the database clock (stamped with now() by the saves). An account with
    // removed_at set is gone for every reader; a reset bumps the account's epoch, and its rows of an
    // older epoch are gone for every reader. Either way the rows go a batch at a time in later
    // transactions (purged_epoch: the epoch below which none is left), so a big account's reset or
    // removal commits at once and holds no other account up.
    sql: `
ALTER TABLE paykit_accounts ADD COLUMN last_used_at TIMESTAMPTZ NOT NULL DEFAULT now();
ALTER TABLE paykit_accounts ADD COLUMN removed_at TIMESTAMPTZ;
ALTER TABLE paykit_accounts ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE paykit_accounts ADD COLUMN purged_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE paykit_payins ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE paykit_payouts ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE paykit_deliveries ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE paykit_payouts DROP CONSTRAINT paykit_payouts_reference_unique;
ALTER TABLE paykit_payouts ADD CONSTRAINT paykit_payouts_reference_unique UNIQUE (account_id, epoch, reference_id);
CREATE INDEX paykit_accounts_by_last_use ON paykit_accounts (last_used_at) WHERE removed_at IS NULL;
CREATE INDEX paykit_accounts_to_purge ON paykit_accounts (id) WHERE removed_at IS NOT NULL OR purged_epoch < epoch;
`,
  },
  {
    version: 5,
    name: "accounts load on use: when each account next has work due, its active records, payins by 3DS transaction",
    // next_due_ms is on the sandbox clock (real time plus the sandbox's offset, in epoch ms): the
    // earliest expiry, reserve release, webhook retry or payout step of the account's records, NULL
    // when none waits. A process reads an account into memory only when a request needs it or its
    // work falls due, so start-up reads no records and memory follows use.
    sql: `
ALTER TABLE paykit_accounts ADD COLUMN next_due_ms BIGINT;
CREATE INDEX paykit_accounts_due ON paykit_accounts (next_due_ms) WHERE next_due_ms IS NOT NULL AND removed_at IS NULL;
CREATE INDEX paykit_payins_by_three_ds ON paykit_payins ((record->'threeDS'->>'transactionId'))
  WHERE jsonb_typeof(record->'threeDS') = 'object';
CREATE INDEX paykit_payins_active ON paykit_payins (account_id)
  WHERE status IN ('PENDING', 'PENDING_3DS') OR jsonb_typeof(record->'reserveReleaseAt') = 'number';
CREATE INDEX paykit_payouts_active ON paykit_payouts (account_id)
  WHERE status IN ('AWAITING_APPROVAL', 'PENDING', 'PROCESSING', 'APPROVED');
CREATE INDEX paykit_deliveries_pending ON paykit_deliveries (account_id) WHERE state = 'pending';
-- Accounts an older mock saved with work still to come are due now: the first process of this
-- version reads each one in, which arms its work and saves its real due time.
UPDATE paykit_accounts a SET next_due_ms = 0
 WHERE a.removed_at IS NULL AND (
   EXISTS (SELECT 1 FROM paykit_payins r WHERE r.account_id = a.id AND r.epoch = a.epoch
             AND (r.status IN ('PENDING', 'PENDING_3DS') OR jsonb_typeof(r.record->'reserveReleaseAt') = 'number'))
   OR EXISTS (SELECT 1 FROM paykit_payouts r WHERE r.account_id = a.id AND r.epoch = a.epoch
             AND r.status IN ('AWAITING_APPROVAL', 'PENDING', 'PROCESSING', 'APPROVED'))
   OR EXISTS (SELECT 1 FROM paykit_deliveries d WHERE d.account_id = a.id AND d.epoch = a.epoch AND d.state = 'pending'));
`,
  },
  {
    version: 6,
    name: "every process serves every request: a version per account and one for the sandbox",
    // Each transaction that writes an account's rows bumps its version, under the account row's lock
    // (SELECT … FOR UPDATE): a process that holds the account in memory at another version brings it
    // up to date before it serves a request of it. The sandbox row (clock, PIX keys) has one too.
    // Each record row carries the version that last wrote it, so a copy at version v reads only the
    // rows above v; `trimmed_version` is the last version that deleted or hid rows (a reset, the
    // retention limit), which no such read can see: a copy older than it is read again whole.
    sql: `
ALTER TABLE paykit_accounts ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE paykit_accounts ADD COLUMN trimmed_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE paykit_sandbox ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE paykit_payins ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE paykit_payouts ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE paykit_deliveries ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS paykit_payins_account_version ON paykit_payins (account_id, version);
CREATE INDEX IF NOT EXISTS paykit_payouts_account_version ON paykit_payouts (account_id, version);
CREATE INDEX IF NOT EXISTS paykit_deliveries_account_version ON paykit_deliveries (account_id, version);
-- Which process an account's \`paykit-mock listen\` polls, until when: only that process sends the
-- account's webhook attempts meanwhile (it hands them to the listener).
CREATE TABLE IF NOT EXISTS paykit_listeners (
  account_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  until TIMESTAMPTZ NOT NULL
);
-- The answers a leader kept for the requests a follower relayed: no process relays any more.
DROP TABLE IF EXISTS paykit_forwarded;
-- Refuses a write from inside a statement: a request's statements go with its COMMIT in one round
-- trip, so a condition that must stop the commit (the sandbox row moved on) raises an error.
CREATE OR REPLACE FUNCTION paykit_refuse(refused boolean, message text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF refused THEN RAISE EXCEPTION '%', message; END IF;
  RETURN true;
END $$;
`,
  },
];

/** The newest schema version this mock knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** The database was migrated by a newer mock: this one refuses to start, or to go on serving, on it. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database's paykit-mock schema is version ${found}, and this @paykit/mock-server knows up to version ${known}: ` +
        "upgrade @paykit/mock-server (every process sharing the database must run the same or a newer version)",
    );
  }
}

// Any constant works: every mock process takes the same one around its migration.
/** The advisory lock a migration holds alone, and each shared-store transaction shares. */
export const MIGRATION_LOCK = 0x7061796b; // "payk"

async function appliedVersion(tx: SqlQueryable): Promise<number> {
  const { rows } = await tx.query<{ version: number | null }>(
    "SELECT max(version)::int AS version FROM paykit_schema_migrations",
  );
  return rows[0]?.version ?? 0;
}

/** The newest version a list of migrations brings the schema to. */
export function knownVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/**
 * Throws {@link SchemaTooNewError} when a newer mock migrated the database past `known`. For a process
 * already connected: before it reads the state back to lead, and inside each write transaction (see
 * {@link guardWrite}).
 */
export async function assertSchemaKnown(db: SqlQueryable, known: number = SCHEMA_VERSION): Promise<void> {
  const found = await appliedVersion(db);
  if (found > known) throw new SchemaTooNewError(found, known);
}

/**
 * The first statements of a write transaction on a database other mock processes share: a shared hold
 * on the migration lock (so a newer mock's migration waits for this write to commit, and this write
 * waits for a migration under way), then the version check. A newer schema throws
 * {@link SchemaTooNewError} before anything is written, so an older process never writes rows a newer
 * one does not expect, not even in the moment before its heartbeat notices.
 */
export async function guardWrite(tx: SqlQueryable, known: number = SCHEMA_VERSION): Promise<void> {
  // Two statements, not one: a statement's snapshot is taken when it starts, so a version read in the
  // statement that waits for the lock would not see the migration it waited for.
  await tx.query("SELECT pg_advisory_xact_lock_shared($1)", [MIGRATION_LOCK]);
  await assertSchemaKnown(tx, known);
}

/**
 * Brings the schema to {@link SCHEMA_VERSION}: creates it on an empty database, applies the missing
 * migrations in order, does nothing when it is current, and throws {@link SchemaTooNewError} when it is
 * newer. Answers the versions before and after.
 */
export async function migrate(
  db: SqlDatabase,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const known = knownVersion(migrations);
  // A schema already current needs no lock: a process starting beside others that serve the store
  // does not queue its start behind their transactions (nor theirs behind its exclusive lock).
  const present = await db.query<{ present: boolean }>(
    "SELECT to_regclass('paykit_schema_migrations') IS NOT NULL AS present",
  );
  if (present.rows[0]?.present === true) {
    const from = await appliedVersion(db);
    if (from > known) throw new SchemaTooNewError(from, known);
    if (from === known) return { from, to: known };
  }
  return db.transaction(async (tx) => {
    // Held until the transaction ends: processes starting together migrate one after another.
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS paykit_schema_migrations (
         version INTEGER PRIMARY KEY,
         name TEXT NOT NULL,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const from = await appliedVersion(tx);
    if (from > known) throw new SchemaTooNewError(from, known);
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= from) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO paykit_schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
    return { from, to: Math.max(from, known) };
  });
}
