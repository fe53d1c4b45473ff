/**
 * The PostgreSQL stores shared by every instance of a webhook receiver: de-duplication and order.
 *
 * @packageDocumentation
 * @module @paykit/webhooks/postgres
 */
import type { DedupBeginResult, WebhookDedupStore } from "./dedupe.js";
import {
  assertQueryClient,
  assertTableName,
  indexName,
  type PostgresClient,
} from "./internal/postgres-client.js";

export type { PostgresClient } from "./internal/postgres-client.js";
export {
  PostgresOrderStore,
  type PostgresOrderStoreOptions,
  postgresOrderSchema,
} from "./postgres-order.js";

/** A PostgreSQL client as `PostgresDedupStore` uses it: the same as {@link PostgresClient}. */
export type PostgresDedupClient = PostgresClient;

/** Options of {@link PostgresDedupStore}. */
export interface PostgresDedupStoreOptions {
  /**
   * The table, optionally schema-qualified (`webhooks.paykit_dedup`); letters, digits and underscores.
   * @default "paykit_webhook_dedup"
   */
  table?: string;
}

/**
 * The table `PostgresDedupStore` uses, for migrations managed outside the app (`ensureSchema()` runs
 * the same statements). A row is a lease (`token` set) or a done mark (`token` null) until `expires_at`.
 */
export function postgresDedupSchema(table = "paykit_webhook_dedup"): string {
  assertTableName(table, "PostgresDedupStore");
  const index = indexName(table, "expires_at");
  return `CREATE TABLE IF NOT EXISTS ${table} (
  key text PRIMARY KEY,
  token text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);`;
}

/**
 * A `WebhookDedupStore` in PostgreSQL, shared by every instance of a receiver. Each transition is
 * one statement (`INSERT … ON CONFLICT … WHERE expired`, conditional `UPDATE`/`DELETE` on the token), so
 * it is atomic without an explicit transaction; leases expire by the database's clock, the one clock
 * every instance shares.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { WebhookDeduplicator } from "@paykit/webhooks";
 * import { PostgresDedupStore } from "@paykit/webhooks/postgres";
 *
 * const store = new PostgresDedupStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.ensureSchema();
 * const dedup = new WebhookDeduplicator({ store });
 * ```
 */
export class PostgresDedupStore implements WebhookDedupStore {
  readonly #client: PostgresDedupClient;
  readonly #table: string;

  constructor(client: PostgresDedupClient, options: PostgresDedupStoreOptions = {}) {
    assertQueryClient(client, "PostgresDedupStore");
    this.#table = options.table ?? "paykit_webhook_dedup";
    assertTableName(this.#table, "PostgresDedupStore");
    this.#client = client;
  }

  /** Creates the table and its index when missing (`CREATE … IF NOT EXISTS`). */
  async ensureSchema(): Promise<void> {
    for (const statement of postgresDedupSchema(this.#table).split(";\n")) {
      await this.#client.query(statement);
    }
  }

  /** Takes the lease when the key is absent or expired; otherwise reports who has it. */
  async begin(key: string, token: string, leaseMs: number): Promise<DedupBeginResult> {
    // Two rounds at most: a row that expires between the insert and the read is taken on the second.
    for (let round = 0; round < 2; round += 1) {
      const taken = await this.#client.query(
        `INSERT INTO ${this.#table} AS d (key, token, expires_at)
         VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
         WHERE d.expires_at <= clock_timestamp()
         RETURNING key`,
        [key, token, leaseMs],
      );
      if (taken.rows.length === 1) return "started";
      const held = await this.#client.query(
        `SELECT token IS NULL AS done FROM ${this.#table} WHERE key = $1 AND expires_at > clock_timestamp()`,
        [key],
      );
      const row = held.rows[0];
      if (row !== undefined) return row.done === true ? "done" : "in-progress";
    }
    return "in-progress";
  }

  /** Extends the lease when `token` still holds it. */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const renewed = await this.#client.query(
      `UPDATE ${this.#table} SET expires_at = clock_timestamp() + $3::bigint * interval '1 millisecond'
       WHERE key = $1 AND token = $2 RETURNING key`,
      [key, token, leaseMs],
    );
    return renewed.rows.length === 1;
  }

  /** Marks the key done for `ttlMs`. */
  async complete(key: string, _token: string, ttlMs: number): Promise<void> {
    await this.#client.query(
      `INSERT INTO ${this.#table} (key, token, expires_at)
       VALUES ($1, NULL, clock_timestamp() + $2::bigint * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET token = NULL, expires_at = EXCLUDED.expires_at`,
      [key, ttlMs],
    );
  }

  /** Deletes the row only while `token` holds its lease. */
  async release(key: string, token: string): Promise<void> {
    await this.#client.query(`DELETE FROM ${this.#table} WHERE key = $1 AND token = $2`, [key, token]);
  }

  /** Deletes expired rows; run it now and then (a cron, or at start) to keep the table small. */
  async purgeExpired(): Promise<number> {
    const purged = await this.#client.query(
      `DELETE FROM ${this.#table} WHERE expires_at <= clock_timestamp() RETURNING key`,
    );
    return purged.rows.length;
  }
}
