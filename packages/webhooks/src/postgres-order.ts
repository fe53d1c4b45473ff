import {
  assertQueryClient,
  assertTableName,
  indexName,
  type PostgresClient,
} from "./internal/postgres-client.js";
import { type OrderClaim, type OrderState, type OrderVerdict, webhookOrderVerdict } from "./order-rules.js";
import type { OrderBegin, WebhookOrderStore } from "./order-store.js";

/** Options of {@link PostgresOrderStore}. */
export interface PostgresOrderStoreOptions {
  /**
   * The table, optionally schema-qualified (`webhooks.paykit_order`); letters, digits and underscores.
   * @default "paykit_webhook_order"
   */
  table?: string;
}

const STORE = "PostgresOrderStore";

/**
 * The table `PostgresOrderStore` uses, for migrations managed outside the app (`ensureSchema()` runs
 * the same statements). A row holds one resource's last status (`status`, `updated_ms`) until
 * `expires_at`, and the lease of the attempt moving it (`lease_token` until `lease_until`).
 */
export function postgresOrderSchema(table = "paykit_webhook_order"): string {
  assertTableName(table, STORE);
  return `CREATE TABLE IF NOT EXISTS ${table} (
  key text PRIMARY KEY,
  status text,
  updated_ms bigint,
  lease_token text,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL,
  written_by text
);
CREATE INDEX IF NOT EXISTS ${indexName(table, "expires_at")} ON ${table} (expires_at);`;
}

/**
 * A `WebhookOrderStore` in PostgreSQL, shared by every instance of a receiver. Each operation is one
 * statement on the resource's row (`INSERT … ON CONFLICT DO UPDATE` whose columns keep their value
 * unless the event moves the resource forward), so it is atomic without an explicit transaction, and
 * two receivers racing on one resource take turns on its row lock; leases and TTLs run on the database's
 * clock, the one clock every instance shares.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { WebhookOrderGuard } from "@paykit/webhooks";
 * import { PostgresOrderStore } from "@paykit/webhooks/postgres";
 *
 * const store = new PostgresOrderStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.ensureSchema();
 * const order = new WebhookOrderGuard({ store });
 * ```
 */
export class PostgresOrderStore implements WebhookOrderStore {
  readonly #client: PostgresClient;
  readonly #table: string;
  readonly #sql: ReturnType<typeof statements>;

  constructor(client: PostgresClient, options: PostgresOrderStoreOptions = {}) {
    assertQueryClient(client, STORE);
    this.#table = options.table ?? "paykit_webhook_order";
    assertTableName(this.#table, STORE);
    this.#client = client;
    this.#sql = statements(this.#table);
  }

  /**
   * Creates the table and its index when missing, in one statement under a lock named after the table:
   * every instance may run it at boot (`CREATE … IF NOT EXISTS` alone races with itself).
   */
  async ensureSchema(): Promise<void> {
    const lock = `${STORE}:${this.#table}`;
    await this.#client.query(`DO $$ BEGIN
PERFORM pg_advisory_xact_lock(hashtext('${lock}'));
${postgresOrderSchema(this.#table)}
END $$`);
  }

  /** Takes the lease when `claim` moves the resource forward and no other attempt holds it. */
  async begin(key: string, claim: OrderClaim, token: string, leaseMs: number): Promise<OrderBegin> {
    const { rows } = await this.#client.query(this.#sql.begin, [key, token, leaseMs, ...claimValues(claim)]);
    const row = rows[0];
    if (row === undefined) throw new Error(`${STORE}: the statement answered no row`);
    const known = stateOf(row);
    if (row.taken === true) return { answer: "started", previous: known };
    // Not taken: the row answered is the one compared, under its lock. Either the event does not move it,
    // or another attempt's live lease does.
    const verdict = known === null ? "forward" : webhookOrderVerdict(claim, known);
    return verdict === "forward" || known === null ? { answer: "in-progress" } : { answer: verdict, known };
  }

  /** Extends the lease when `token` still holds it. */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const { rows } = await this.#client.query(this.#sql.renew, [key, token, leaseMs]);
    return rows.length === 1;
  }

  /** Moves the state forward when `claim` still is, and frees `token`'s lease. */
  async commit(key: string, claim: OrderClaim, token: string, ttlMs: number): Promise<OrderVerdict> {
    const mark = globalThis.crypto.randomUUID();
    const { rows } = await this.#client.query(this.#sql.commit, [
      key,
      token,
      ttlMs,
      ...claimValues(claim),
      mark,
    ]);
    const row = rows[0];
    if (row === undefined) throw new Error(`${STORE}: the statement answered no row`);
    if (row.moved === true) return "forward";
    const known = stateOf(row);
    return known === null ? "forward" : webhookOrderVerdict(claim, known);
  }

  /** Frees the lease only while `token` holds it. */
  async release(key: string, token: string): Promise<void> {
    await this.#client.query(this.#sql.release, [key, token]);
  }

  /** The resource's last status and `updatedAt`, or null. */
  async read(key: string): Promise<OrderState | null> {
    const { rows } = await this.#client.query(this.#sql.read, [key]);
    return rows[0] === undefined ? null : stateOf(rows[0]);
  }

  /** Deletes expired rows; run it now and then (a cron, or at start) to keep the table small. */
  async purgeExpired(): Promise<number> {
    const { rows } = await this.#client.query(this.#sql.purge);
    return rows.length;
  }
}

/** $4 status, $5 updatedAt ms, $6 the statuses it follows, $7 the statuses this version knows. */
function claimValues(claim: OrderClaim): unknown[] {
  return [claim.status, claim.updatedAtMs, [...claim.follows], [...claim.statuses]];
}

function stateOf(row: Record<string, unknown>): OrderState | null {
  if (typeof row.status !== "string") return null;
  return { status: row.status, updatedAtMs: Number(row.updated_ms) };
}

// Each step one statement (docs/decisions/webhook-order-stores.md).
function statements(table: string) {
  const now = "statement_timestamp()";
  const ms = (param: string) => `${now} + ${param}::bigint * interval '1 millisecond'`;
  // Whether the row holds a state: a status that has not expired.
  const live = `(o.status IS NOT NULL AND o.expires_at > ${now})`;
  // webhookOrderVerdict(claim, state) === "forward" (order-rules.ts), on the row's state.
  const forward = `(NOT ${live} OR ($5::bigint >= o.updated_ms AND o.status <> $4::text AND CASE
      WHEN $4::text = ANY($7::text[]) AND o.status = ANY($7::text[]) THEN o.status = ANY($6::text[])
      ELSE $5::bigint > o.updated_ms END))`;
  const leaseFree = `(o.lease_token IS NULL OR o.lease_until <= ${now})`;
  const take = `(${forward} AND ${leaseFree})`;
  const mine = "o.lease_token = $2::text";
  return {
    // The row comes back under its lock, as compared: taken (this attempt's lease) or not, and the state.
    begin: `INSERT INTO ${table} AS o (key, lease_token, lease_until, expires_at)
VALUES ($1, $2::text, ${ms("$3")}, ${ms("$3")})
ON CONFLICT (key) DO UPDATE SET
  status = CASE WHEN ${live} THEN o.status END,
  updated_ms = CASE WHEN ${live} THEN o.updated_ms END,
  lease_token = CASE WHEN ${take} THEN EXCLUDED.lease_token ELSE o.lease_token END,
  lease_until = CASE WHEN ${take} THEN EXCLUDED.lease_until ELSE o.lease_until END,
  expires_at = CASE WHEN ${take} THEN GREATEST(o.expires_at, EXCLUDED.lease_until) ELSE o.expires_at END
RETURNING status, updated_ms, lease_token IS NOT DISTINCT FROM $2::text AS taken`,
    // $8 marks the row when this statement moved it. A state that moves is kept the TTL from now, and
    // as long as another attempt's live lease.
    commit: `INSERT INTO ${table} AS o (key, status, updated_ms, expires_at, written_by)
VALUES ($1, $4::text, $5::bigint, ${ms("$3")}, $8::text)
ON CONFLICT (key) DO UPDATE SET
  status = CASE WHEN ${forward} THEN EXCLUDED.status WHEN ${live} THEN o.status END,
  updated_ms = CASE WHEN ${forward} THEN EXCLUDED.updated_ms WHEN ${live} THEN o.updated_ms END,
  written_by = CASE WHEN ${forward} THEN EXCLUDED.written_by ELSE o.written_by END,
  lease_token = CASE WHEN ${mine} THEN NULL ELSE o.lease_token END,
  lease_until = CASE WHEN ${mine} THEN NULL ELSE o.lease_until END,
  expires_at = CASE WHEN ${forward}
    THEN GREATEST(EXCLUDED.expires_at, CASE WHEN NOT ${mine} THEN o.lease_until END)
    ELSE o.expires_at END
RETURNING status, updated_ms, written_by IS NOT DISTINCT FROM $8::text AS moved`,
    renew: `UPDATE ${table} SET lease_until = ${ms("$3")}, expires_at = GREATEST(expires_at, ${ms("$3")})
WHERE key = $1 AND lease_token = $2::text RETURNING key`,
    // A row without a state is gone with its lease.
    release: `UPDATE ${table} SET lease_token = NULL, lease_until = NULL,
  expires_at = CASE WHEN status IS NULL THEN ${now} ELSE expires_at END
WHERE key = $1 AND lease_token = $2::text`,
    read: `SELECT status, updated_ms FROM ${table}
WHERE key = $1 AND status IS NOT NULL AND expires_at > clock_timestamp()`,
    purge: `DELETE FROM ${table} WHERE expires_at <= clock_timestamp() RETURNING key`,
  };
}
