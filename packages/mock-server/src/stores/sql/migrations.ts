// The SQL stores' schema, as numbered migrations applied at start in one transaction under an advisory
// lock, so mock processes starting together on one database migrate it once. A database whose schema is
// newer than this mock knows is refused: an older mock must not write rows it does not understand. That
// holds for a process already running when a newer one migrates the database too: every transaction
// checks the version in its first statement, under a shared hold on the migration lock.
import type { SqlDatabase, SqlQueryable } from "./sql-client.js";

/** One step of the schema. Never edit a released one: add the next. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Every migration, in order (docs/decisions/sandbox-store.md). A record is kept whole as JSON
 * (`record`), beside the columns the store filters, sorts, constrains or claims on; its shape is the
 * domain's (one definition: domain/records.ts), and stores/sql/columns.ts maps the columns. Money is
 * BIGINT cents; an account's totals are columns, checked by constraints. Records and deliveries have no
 * foreign key to their account: a reset or a removal hides them at once (their account's `epoch`, its
 * `removed_at`) and they are deleted a batch at a time later.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "the sandbox: accounts with their totals, payins, payouts, deliveries, due work, faults, PIX keys, listeners",
    sql: `
CREATE TABLE paykit_sandbox (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  default_account_id TEXT,
  rate_limit JSONB,
  faults_armed BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO paykit_sandbox (id) VALUES (1);
CREATE TABLE paykit_accounts (
  id TEXT PRIMARY KEY,
  public_key TEXT NOT NULL UNIQUE,
  secret_key_hash TEXT NOT NULL,
  settings JSONB NOT NULL,
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  opening_balance BIGINT NOT NULL CHECK (opening_balance >= 0),
  approved_net BIGINT NOT NULL DEFAULT 0 CHECK (approved_net >= 0),
  reserved BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  debited BIGINT NOT NULL DEFAULT 0 CHECK (debited >= 0),
  in_flight BIGINT NOT NULL DEFAULT 0 CHECK (in_flight >= 0),
  payout_count BIGINT NOT NULL DEFAULT 0 CHECK (payout_count >= 0),
  payout_status_counts JSONB NOT NULL DEFAULT '{}',
  epoch INTEGER NOT NULL DEFAULT 0,
  purged_epoch INTEGER NOT NULL DEFAULT 0,
  removed_at TIMESTAMPTZ,
  last_used_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  CONSTRAINT paykit_accounts_available CHECK (opening_balance + approved_net - reserved - debited >= 0)
);
CREATE INDEX paykit_accounts_by_last_use ON paykit_accounts (last_used_at) WHERE removed_at IS NULL;
CREATE INDEX paykit_accounts_to_purge ON paykit_accounts (id) WHERE removed_at IS NOT NULL OR purged_epoch < epoch;
-- boleto numbers ("nosso número"): taken without a lock on any row
CREATE SEQUENCE paykit_boleto_seq;
CREATE TABLE paykit_payins (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  status TEXT NOT NULL,
  amount BIGINT NOT NULL CHECK (amount > 0),
  three_ds_tx TEXT,
  record JSONB NOT NULL
);
CREATE INDEX paykit_payins_page ON paykit_payins (account_id, epoch, id);
CREATE INDEX paykit_payins_by_three_ds ON paykit_payins (three_ds_tx) WHERE three_ds_tx IS NOT NULL;
CREATE TABLE paykit_payouts (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  reference_id TEXT NOT NULL,
  status TEXT NOT NULL,
  amount BIGINT NOT NULL CHECK (amount > 0),
  created_ms BIGINT NOT NULL,
  record JSONB NOT NULL,
  CONSTRAINT paykit_payouts_reference_unique UNIQUE (account_id, epoch, reference_id)
);
CREATE INDEX paykit_payouts_page ON paykit_payouts (account_id, epoch, id);
CREATE INDEX paykit_payouts_list ON paykit_payouts (account_id, epoch, created_ms, id);
CREATE INDEX paykit_payouts_by_status ON paykit_payouts (account_id, epoch, status, created_ms, id);
-- the payouts still moving, which a process with automatic steps arms at its start
CREATE INDEX paykit_payouts_moving ON paykit_payouts (id) WHERE status IN ('PENDING', 'APPROVED', 'PROCESSING');
CREATE TABLE paykit_deliveries (
  id TEXT PRIMARY KEY,
  seq BIGSERIAL NOT NULL,
  account_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  resource_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  due_ms BIGINT,
  hold_until_ms BIGINT NOT NULL DEFAULT 0,
  out_of_order BOOLEAN NOT NULL DEFAULT false,
  lease_owner TEXT,
  lease_until_ms BIGINT,
  record JSONB NOT NULL
);
CREATE INDEX paykit_deliveries_log ON paykit_deliveries (account_id, epoch, id);
CREATE INDEX paykit_deliveries_by_resource ON paykit_deliveries (account_id, epoch, resource_id, seq);
CREATE INDEX paykit_deliveries_due ON paykit_deliveries (due_ms) WHERE state = 'pending';
CREATE INDEX paykit_deliveries_pending ON paykit_deliveries (account_id, epoch) WHERE state = 'pending';
CREATE TABLE paykit_due (
  kind TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  clock TEXT NOT NULL CHECK (clock IN ('account', 'real')),
  at_ms BIGINT NOT NULL,
  due_ms BIGINT NOT NULL,
  PRIMARY KEY (kind, resource_id)
);
-- an account's work in the order it falls due: what is due now is a range at the index's start
CREATE INDEX paykit_due_by_account ON paykit_due (account_id, due_ms);
CREATE INDEX paykit_due_on_account_clock ON paykit_due (due_ms) WHERE clock = 'account';
CREATE INDEX paykit_due_on_real_clock ON paykit_due (due_ms) WHERE clock = 'real';
CREATE TABLE paykit_faults (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT,
  method TEXT,
  path TEXT NOT NULL,
  spec JSONB NOT NULL,
  remaining INTEGER NOT NULL CHECK (remaining >= 0)
);
CREATE INDEX paykit_faults_by_account ON paykit_faults (account_id);
CREATE TABLE paykit_pix_keys (
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0,
  seeded BOOLEAN NOT NULL DEFAULT false,
  entry JSONB NOT NULL,
  PRIMARY KEY (account_id, key_id)
);
CREATE TABLE paykit_listeners (
  account_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  listener TEXT NOT NULL,
  until_ms BIGINT NOT NULL,
  events TEXT[],
  retired TEXT[] NOT NULL DEFAULT '{}'
);
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
