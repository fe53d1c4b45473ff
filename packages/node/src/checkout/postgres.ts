/**
 * A PostgreSQL payment-status store: every instance of a merchant's backend shares payin statuses
 * and live updates through one database (`LISTEN`/`NOTIFY`), with the `pg` driver.
 *
 * @packageDocumentation
 * @module @paykit/node/checkout/postgres
 */
import {
  DEFAULT_FRESH_WINDOW_MS,
  DEFAULT_STATUS_TTL_MS,
  decodeStatus,
  encodeStatus,
  isFinalStatus,
  positiveMs,
  updatedAtMs,
} from "./status-codec.js";
import type { PaymentStatus, PaymentStatusStore, Unsubscribe } from "./store.js";
import { Subscriptions } from "./subscriptions.js";

/** A `pg` `Pool` as `postgresStatusStore` uses it: statements, and one client checked out for `LISTEN`. */
export interface PostgresStatusPool {
  /** Runs one parameterized statement (`$1`, `$2`, …) and answers its rows. */
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** Checks out a client (the store holds one for `LISTEN` while anything is subscribed). */
  connect(): Promise<PostgresListenClient>;
}

/** The part of a `pg` `PoolClient` the store's `LISTEN` connection uses. */
export interface PostgresListenClient {
  /** Runs one statement on this connection. */
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** Adds an event listener (`notification`, `error`, `end`). */
  on(event: string, listener: Function): unknown;
  /** Removes an event listener. */
  removeListener(event: string, listener: Function): unknown;
  /** Gives the client back to the pool; `true` or an error closes its connection instead. */
  release(destroy?: Error | boolean): void;
}

/** Options of {@link postgresStatusStore}. */
export interface PostgresStatusStoreOptions {
  /**
   * The table, optionally schema-qualified (`shop.payment_status`); letters, digits and underscores.
   * @default "paykit_payment_status"
   */
  table?: string;
  /**
   * The `NOTIFY` channel updates travel on; letters, digits and underscores.
   * @default "paykit_payment_status"
   */
  channel?: string;
  /**
   * How long a status is remembered after its last write, in milliseconds. Longer than a shopper
   * stays on the payment page; after it, `latest` answers null and the handler asks the service.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /**
   * The poll-free window of a fresh `publish` that names no `pollIntervalMs`, in milliseconds.
   * @default 2_000
   */
  pollIntervalMs?: number;
  /**
   * Called with errors the store cannot hand to a caller: the `LISTEN` connection dropping (the store
   * reconnects by itself), a failed reconnect or clean-up, a listener's throw.
   * @default ignores them
   */
  onError?: (error: unknown) => void;
}

/** A `PaymentStatusStore` (`@paykit/node/checkout`) in PostgreSQL, with the table's upkeep. */
export interface PostgresStatusStore extends PaymentStatusStore {
  /**
   * Creates the table and its indexes when missing (`CREATE … IF NOT EXISTS`), on one client of the
   * pool; safe to run from every instance at once (they take turns under an advisory lock).
   */
  ensureSchema(): Promise<void>;
  /** Deletes rows whose status and poll window have both expired; answers how many. */
  purgeExpired(): Promise<number>;
}

const STORE = "postgresStatusStore";
const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
const CHANNEL = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (default build); a larger status travels
// as `{"id"}` and each instance reads it from the table.
const MAX_PAYLOAD_BYTES = 7_999;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;
// Statuses written this long before the LISTEN connection was seen to drop are re-read after
// reconnecting, for the time a dying connection takes to report it.
const CATCH_UP_MARGIN_MS = 10_000;
const CATCH_UP_MAX_ROWS = 10_000;
const HEALTH_CHECK_MS = 30_000;
const HEALTH_TIMEOUT_MS = 10_000;
const PURGE_EVERY_MS = 60_000;

/**
 * The table `postgresStatusStore` uses, for migrations managed outside the app (`ensureSchema()`
 * runs the same statements). A row holds an id's newest status until `expires_at` and its poll window
 * until `poll_until`; a row made by `claimPoll` alone has no status.
 */
export function postgresStatusSchema(table = "paykit_payment_status"): string {
  assertIdentifier(table, TABLE, "table");
  const index = table.replace(".", "_");
  return `CREATE TABLE IF NOT EXISTS ${table} (
  id text PRIMARY KEY,
  status json,
  final boolean NOT NULL DEFAULT false,
  updated_at timestamptz,
  poll_until timestamptz,
  expires_at timestamptz NOT NULL,
  written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  write_token text
);
CREATE INDEX IF NOT EXISTS ${index}_expires_at_idx ON ${table} (expires_at);
CREATE INDEX IF NOT EXISTS ${index}_written_at_idx ON ${table} (written_at)`;
}

/**
 * A `PaymentStatusStore` (`@paykit/node/checkout`) in PostgreSQL, shared by every instance of the
 * merchant's backend: `notify` on one instance reaches the open status streams on all of them, and
 * one instance per interval polls the service for an id. Call `ensureSchema()` once (or run
 * {@link postgresStatusSchema} in a migration).
 *
 * - `publish` is one statement: an upsert that keeps the newest status per id (never replacing a
 *   final one, nor one with a later `updatedAt`) for `ttlMs` and holds the poll window when fresh, and
 *   `pg_notify` of the stored status, in the same transaction.
 * - `subscribe` holds ONE client of the pool with `LISTEN` while the store is open. When its connection
 *   drops, the store reconnects with backoff (250 ms doubling to 10 s), listens again, and re-delivers
 *   every status written since shortly before the drop; the handler's polling covers anything else.
 * - `claimPoll` is one `INSERT … ON CONFLICT DO UPDATE … WHERE poll_until <= clock_timestamp()` on
 *   the database's clock, the one clock every instance shares.
 * - Expired rows are deleted at most once a minute, during a publish or a claim.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { postgresStatusStore } from "@paykit/node/checkout/postgres";
 *
 * const store = postgresStatusStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.ensureSchema();
 * ```
 */
export function postgresStatusStore(
  pool: PostgresStatusPool,
  options: PostgresStatusStoreOptions = {},
): PostgresStatusStore {
  if (
    pool === null ||
    typeof pool !== "object" ||
    typeof pool.query !== "function" ||
    typeof pool.connect !== "function"
  ) {
    throw new TypeError(`${STORE}: pool must be a pg Pool`);
  }
  return new PgStatusStore(pool, options);
}

type Listener = (status: PaymentStatus) => void;

class PgStatusStore implements PostgresStatusStore {
  readonly #pool: PostgresStatusPool;
  readonly #table: string;
  readonly #channel: string;
  readonly #ttlMs: number;
  readonly #windowMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #sql: { publish: string; latest: string; claim: string; purge: string; catchUp: string };
  // The LISTEN connection, opened by the first subscribe (a reconnect listens again without it).
  readonly #subscriptions: Subscriptions<void>;
  #connection: { client: PostgresListenClient; detach: () => void } | undefined;
  #reconnecting: Promise<void> | undefined;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #healthTimer: ReturnType<typeof setInterval> | undefined;
  #attempt = 0;
  #lostAt: number | undefined;
  #lastPurge = 0;
  #purging: Promise<void> | undefined;
  #closed = false;

  constructor(pool: PostgresStatusPool, options: PostgresStatusStoreOptions) {
    this.#pool = pool;
    this.#table = options.table ?? "paykit_payment_status";
    this.#channel = options.channel ?? "paykit_payment_status";
    assertIdentifier(this.#table, TABLE, "table");
    assertIdentifier(this.#channel, CHANNEL, "channel");
    this.#ttlMs = positiveMs(options.ttlMs, DEFAULT_STATUS_TTL_MS, "ttlMs", STORE);
    this.#windowMs = positiveMs(options.pollIntervalMs, DEFAULT_FRESH_WINDOW_MS, "pollIntervalMs", STORE);
    this.#onError = options.onError ?? (() => undefined);
    this.#sql = statements(this.#table);
    this.#subscriptions = new Subscriptions(() => this.#listen(), this.#onError);
  }

  async ensureSchema(): Promise<void> {
    // Every instance may run this at boot, and `CREATE … IF NOT EXISTS` races with itself in PostgreSQL
    // (`type "…" already exists`): one instance at a time creates, under a lock named after the table.
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`${STORE}:${this.#table}`]);
      for (const statement of postgresStatusSchema(this.#table).split(";\n")) await client.query(statement);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true; // the connection itself failed: it is closed rather than put back
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async publish(status: PaymentStatus, options: { fresh?: boolean; pollIntervalMs?: number } = {}) {
    const ms = updatedAtMs(status, STORE);
    const json = encodeStatus(status);
    const message =
      new TextEncoder().encode(json).length <= MAX_PAYLOAD_BYTES ? json : JSON.stringify({ id: status.id });
    const window = options.fresh === true ? (options.pollIntervalMs ?? this.#windowMs) : 0;
    await this.#pool.query(this.#sql.publish, [
      status.id,
      json,
      isFinalStatus(status.status),
      new Date(ms).toISOString(),
      Math.max(0, Math.round(window)),
      this.#ttlMs,
      globalThis.crypto.randomUUID(),
      this.#channel,
      message,
    ]);
    this.#maybePurge();
  }

  async subscribe(listener: Listener): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`${STORE}: the store is closed`);
    return this.#subscriptions.add(listener);
  }

  async latest(id: string): Promise<PaymentStatus | null> {
    const { rows } = await this.#pool.query(this.#sql.latest, [id]);
    const text = rows[0]?.status;
    return typeof text === "string" ? decodeStatus(text) : null;
  }

  async claimPoll(id: string, intervalMs: number): Promise<boolean> {
    const { rows } = await this.#pool.query(this.#sql.claim, [id, Math.max(1, Math.round(intervalMs))]);
    this.#maybePurge();
    return rows.length === 1;
  }

  async purgeExpired(): Promise<number> {
    const { rows } = await this.#pool.query(this.#sql.purge);
    return rows.length;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    await Promise.all([this.#subscriptions.end(), this.#reconnecting, this.#purging]);
    await this.#drop();
  }

  // Opens the LISTEN connection; rejects (and keeps nothing open) when it cannot.
  async #listen(): Promise<void> {
    const client = await this.#pool.connect();
    // A pg client's `error` event with no listener would end the process; this one stays for its life.
    client.on("error", () => undefined);
    const onNotification = (message: { channel: string; payload?: string }) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#receive(message.payload);
    };
    const onLost = (error?: unknown) => this.#lost(client, error);
    client.on("notification", onNotification);
    client.on("error", onLost);
    client.on("end", onLost);
    const detach = () => {
      client.removeListener("notification", onNotification);
      client.removeListener("error", onLost);
      client.removeListener("end", onLost);
    };
    try {
      await client.query(`LISTEN "${this.#channel}"`);
      if (this.#closed) throw new Error(`${STORE}: the store is closed`);
    } catch (error) {
      detach();
      await endClient(client, error);
      throw error;
    }
    this.#connection = { client, detach };
    this.#healthTimer = setInterval(() => this.#checkHealth(client), HEALTH_CHECK_MS);
    this.#healthTimer.unref?.();
  }

  #receive(payload: string): void {
    const status = decodeStatus(payload);
    if (status !== null) {
      this.#subscriptions.deliver(status);
      return;
    }
    // A status too large for NOTIFY arrives as its id alone.
    const id = (decodeJson(payload) as { id?: unknown } | null)?.id;
    if (typeof id !== "string") return;
    this.latest(id).then((stored) => stored !== null && this.#subscriptions.deliver(stored), this.#onError);
  }

  #checkHealth(client: PostgresListenClient): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${STORE}: the LISTEN connection stopped answering`)),
        HEALTH_TIMEOUT_MS,
      );
    });
    Promise.race([client.query("SELECT 1"), timeout])
      .catch((error: unknown) => this.#lost(client, error))
      .finally(() => clearTimeout(timer));
  }

  #lost(client: PostgresListenClient, error?: unknown): void {
    if (this.#connection?.client !== client) return;
    this.#lostAt ??= Date.now();
    void this.#drop(error);
    if (this.#closed) return;
    this.#onError(error ?? new Error(`${STORE}: the LISTEN connection ended`));
    this.#scheduleReconnect();
  }

  // Lets go of the LISTEN connection, if any, closing it (a listening connection is not put back).
  #drop(error?: unknown): Promise<void> {
    clearInterval(this.#healthTimer);
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection === undefined) return Promise.resolve();
    connection.detach();
    return endClient(connection.client, error);
  }

  #scheduleReconnect(): void {
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.#attempt);
    this.#attempt += 1;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnecting = this.#reconnect().finally(() => {
        this.#reconnecting = undefined;
      });
    }, delay);
    this.#reconnectTimer.unref?.();
  }

  async #reconnect(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#listen();
    } catch (error) {
      if (this.#closed) return;
      this.#onError(error);
      this.#scheduleReconnect();
      return;
    }
    this.#attempt = 0;
    const since = Date.now() - (this.#lostAt ?? Date.now()) + CATCH_UP_MARGIN_MS;
    this.#lostAt = undefined;
    try {
      // Listening again first, then reading: a status written in between arrives twice, never zero times.
      const { rows } = await this.#pool.query(this.#sql.catchUp, [since, CATCH_UP_MAX_ROWS]);
      for (const row of rows) {
        const status = typeof row.status === "string" ? decodeStatus(row.status) : null;
        if (status !== null) this.#subscriptions.deliver(status);
      }
    } catch (error) {
      this.#onError(error);
    }
  }

  #maybePurge(): void {
    const now = Date.now();
    if (this.#purging !== undefined || this.#closed || now - this.#lastPurge < PURGE_EVERY_MS) return;
    this.#lastPurge = now;
    this.#purging = this.purgeExpired()
      .then(() => undefined, this.#onError)
      .finally(() => {
        this.#purging = undefined;
      });
  }
}

function statements(table: string) {
  // Whether the incoming row replaces the stored one: nothing stored (or only a poll window), the
  // stored status expired, or it is not final and not newer. statement_timestamp() is one instant for
  // every column of the row, so they all agree.
  const replace = `(s.status IS NULL OR s.expires_at <= statement_timestamp()
    OR (NOT s.final AND s.updated_at <= EXCLUDED.updated_at))`;
  const keep = (column: string) =>
    `${column} = CASE WHEN ${replace} THEN EXCLUDED.${column} ELSE s.${column} END`;
  return {
    // $7 is a fresh token: RETURNING sees it only when this statement wrote the status, and only then
    // is it NOTIFYed (in the same transaction, so listeners never hear of a status that is not stored).
    publish: `WITH written AS (
  INSERT INTO ${table} AS s (id, status, final, updated_at, poll_until, expires_at, written_at, write_token)
  VALUES ($1, $2::json, $3::boolean, $4::timestamptz,
    CASE WHEN $5::bigint > 0 THEN clock_timestamp() + $5::bigint * interval '1 millisecond' END,
    clock_timestamp() + $6::bigint * interval '1 millisecond', clock_timestamp(), $7::text)
  ON CONFLICT (id) DO UPDATE SET
    ${["status", "final", "updated_at", "expires_at", "written_at", "write_token"].map(keep).join(",\n    ")},
    poll_until = GREATEST(s.poll_until, EXCLUDED.poll_until)
  RETURNING s.write_token = $7::text AS stored
)
SELECT pg_notify($8::text, $9::text) FROM written WHERE stored`,
    latest: `SELECT status::text AS status FROM ${table}
WHERE id = $1 AND status IS NOT NULL AND expires_at > clock_timestamp()`,
    claim: `INSERT INTO ${table} AS s (id, poll_until, expires_at)
VALUES ($1, clock_timestamp() + $2::bigint * interval '1 millisecond', clock_timestamp())
ON CONFLICT (id) DO UPDATE SET poll_until = EXCLUDED.poll_until
WHERE s.poll_until IS NULL OR s.poll_until <= clock_timestamp()
RETURNING id`,
    purge: `DELETE FROM ${table} WHERE expires_at <= clock_timestamp()
AND (poll_until IS NULL OR poll_until <= clock_timestamp()) RETURNING id`,
    catchUp: `SELECT status::text AS status FROM ${table}
WHERE written_at >= clock_timestamp() - $1::bigint * interval '1 millisecond'
  AND status IS NOT NULL AND expires_at > clock_timestamp()
ORDER BY written_at LIMIT $2::int`,
  };
}

// Closes a checked-out client's connection and waits for it to end (a bounded wait: an already
// broken connection may never say so).
function endClient(client: PostgresListenClient, error?: unknown): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 5_000);
    timer.unref?.();
    client.on("end", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      client.release(error instanceof Error ? error : true);
    } catch {
      clearTimeout(timer);
      resolve(); // released already
    }
  });
}

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function assertIdentifier(value: string, pattern: RegExp, name: string): void {
  if (typeof value !== "string" || !pattern.test(value)) {
    const qualified = name === "table" ? ", optionally schema-qualified" : "";
    throw new TypeError(`${STORE}: ${name} must be letters, digits and underscores${qualified}`);
  }
}
