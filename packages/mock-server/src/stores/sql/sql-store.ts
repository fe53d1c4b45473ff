// The SQL stores (docs/decisions/sandbox-store.md): PGlite in a data directory (`--data-dir`, one
// process) and PostgreSQL (`--store`, any number of processes). The database is the state: a request
// is one transaction that reads its account's row and the records it touches or lists, through
// indexes, and commits its writes with one round trip; no process keeps a copy of an account. Webhook
// attempts are claimed with a lease (FOR UPDATE SKIP LOCKED), so one process makes each; what resets
// and removals hide is deleted later, a batch per transaction.
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { ApiError } from "../../domain/errors.js";
import { RETIRED_KEPT } from "../../domain/listeners.js";
import type { ClaimedAttempt, SandboxStore, StoreTx, TxScope } from "../../domain/repository.js";
import {
  ENDED_BEFORE_COMMIT,
  MAYBE_STORED,
  NOT_STORED,
  StoreUnavailableError,
} from "../../domain/store-errors.js";
import { StoreHealth } from "../store-health.js";
import { AccountGate } from "./account-gate.js";
import { bringForwardQuery, claimQuery, openAttemptsQuery } from "./claims.js";
import { accountFrom, deliveryFrom, type Row, sandboxFrom } from "./columns.js";
import { MIGRATION_LOCK, SCHEMA_VERSION, SchemaTooNewError } from "./migrations.js";
import { purgeBatch } from "./purge.js";
import { CommitUnknownError, type SqlDatabase, TransactionEndedError } from "./sql-client.js";
import { CALLER_QUERY, callerParams, deliveryUpdate } from "./sql-queries.js";
import { SqlTx } from "./sql-tx.js";

/** How often, at most, a process stamps an account's last use (ms). */
const TOUCH_EVERY_MS = 60_000;

/** Options of a SQL store. */
export interface SqlStoreOptions {
  kind: "embedded" | "shared";
  /** Where it is, without a password. */
  description: string;
  /** Where the lines of an outage go. @default stderr, as `paykit-mock: …` */
  log?: (line: string) => void;
  onError?: (error: unknown) => void;
  now?: () => number;
  /** The schema version this process knows (tests play an older mock). @default SCHEMA_VERSION */
  knownVersion?: number;
  /** Called once the store is closed (the data directory's lock goes). */
  onClose?: () => Promise<void> | void;
  /** Leaves the database open when the store closes (a test that reuses one database). @default false */
  keepDatabase?: boolean;
  /**
   * Deletes what a reset or removal hid right after its commit, in the background. Off, only `purge()`
   * deletes it (a test that counts the batches). @default true
   */
  purgeAfterCommit?: boolean;
  /**
   * How often a transaction waiting in this process for its turn at an account's row lock sends a
   * statement, so that the server's idle-in-transaction limit does not end its session meanwhile
   * (sql-tx.ts). None: the database has no such limit (PGlite).
   */
  keepAliveMs?: number;
}

/** A sandbox kept in a SQL database. */
export class SqlStore implements SandboxStore {
  readonly kind: "embedded" | "shared";
  readonly description: string;
  readonly shared: boolean;
  readonly #db: SqlDatabase;
  readonly #now: () => number;
  readonly #options: SqlStoreOptions;
  readonly #health: StoreHealth | null;
  readonly #log: (line: string) => void;
  readonly #stamped = new Map<string, number>();
  readonly #gate = new AccountGate();
  #touchEveryMs = TOUCH_EVERY_MS;
  #refused: SchemaTooNewError | null = null;
  #purging: Promise<void> | null = null;
  #closed = false;

  constructor(db: SqlDatabase, options: SqlStoreOptions) {
    this.#db = db;
    this.#options = options;
    this.kind = options.kind;
    this.description = options.description;
    this.shared = options.kind === "shared";
    this.#now = options.now ?? Date.now;
    const log = options.log ?? ((line: string) => process.stderr.write(`paykit-mock: ${line}\n`));
    this.#log = log;
    this.#health =
      options.kind === "shared"
        ? new StoreHealth(async () => void (await this.#db.query("SELECT 1")), log, options.description)
        : null;
  }

  /** Whether a newer mock migrated the store: every request is answered 503 then. */
  get refused(): boolean {
    return this.#refused !== null;
  }

  /** How often, at most, this process stamps an account's last use: a quarter of a short retention. */
  setTouchEvery(ms: number): void {
    this.#touchEveryMs = Math.min(TOUCH_EVERY_MS, ms);
  }

  #touch = (accountId: string): boolean => {
    const now = this.#now();
    const last = this.#stamped.get(accountId) ?? 0;
    if (now - last < this.#touchEveryMs) return false;
    if (this.#stamped.size > 10_000) this.#stamped.clear();
    this.#stamped.set(accountId, now);
    return true;
  };

  async transaction<T>(work: (tx: StoreTx) => Promise<T>, scope?: TxScope): Promise<T> {
    if (this.#refused !== null) throw new StoreUnavailableError(this.#refused.message, false);
    let open: Awaited<ReturnType<SqlDatabase["begin"]>>;
    let tx: SqlTx;
    try {
      open = await this.#db.begin();
      // the first round trip: a shared hold on the migration lock (a newer mock's migration waits for
      // this transaction), then, in a statement of its own (its snapshot taken after the hold, and no
      // table held while it waits for the hold), the schema's version and the sandbox's settings
      // (and the caller's account, when the request names one: a merchant call is two round trips)
      const caller = scope?.caller;
      const [, sandbox, callerRows] = await open.batch([
        { text: "SELECT pg_advisory_xact_lock_shared($1)", params: [MIGRATION_LOCK] },
        {
          text: `SELECT s.*, (SELECT max(version) FROM paykit_schema_migrations) AS schema_version
                   FROM paykit_sandbox s WHERE s.id = $1`,
          params: [1],
        },
        ...(caller === undefined ? [] : [{ text: CALLER_QUERY, params: callerParams(caller, this.#now()) }]),
      ]);
      const rows = (sandbox?.rows ?? []) as Row[];
      const row = rows[0];
      if (row === undefined) throw new Error("the store has no sandbox row");
      const found = Number(row.schema_version);
      const known = this.#options.knownVersion ?? SCHEMA_VERSION;
      if (found > known) {
        await open.rollback();
        if (this.#refused === null) {
          this.#refused = new SchemaTooNewError(found, known);
          this.#log(
            `${this.#refused.message}. This process serves nothing more: every request is answered 503`,
          );
        }
        throw new StoreUnavailableError(this.#refused.message, false);
      }
      tx = new SqlTx(open, sandboxFrom(row), this.#now, this.#touch, this.#gate, this.#options.keepAliveMs);
      if (caller !== undefined) tx.prefetchedCaller(caller, (callerRows?.rows ?? []) as Row[]);
    } catch (error) {
      throw this.#failure(error, "before");
    }
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      await this.#rollback(open, tx);
      if (error instanceof ApiError) throw error;
      throw this.#failure(error, "before");
    }
    try {
      const statements = tx.statements();
      const committed = statements.length === 0 ? open.commit() : open.batch(statements, { commit: true });
      // the COMMIT is written (the driver writes as it is called): the server ends the transaction
      // without this process, so the next transaction of it may join the account's queue
      tx.leaveGates();
      await committed;
    } catch (error) {
      await this.#rollback(open, tx);
      throw this.#failure(error, "commit");
    }
    if (tx.hid) this.#purgeLater();
    return result;
  }

  /** Rolls a transaction back and ends its turns at the accounts' gates once the ROLLBACK is written. */
  async #rollback(open: Awaited<ReturnType<SqlDatabase["begin"]>>, tx: SqlTx): Promise<void> {
    const rolledBack = open.rollback();
    tx.leaveGates();
    await rolledBack;
  }

  /** What a store error means for the request: refused data, a store out of reach, or a bug. */
  #failure(error: unknown, when: "before" | "commit"): unknown {
    if (error instanceof StoreUnavailableError || error instanceof ApiError) return error;
    const code = (error as { code?: unknown }).code;
    const constraint = String((error as { constraint?: unknown }).constraint ?? "");
    if (code === "23505" && constraint === "paykit_payouts_reference_unique")
      return new ApiError("INVALID_DATA", "referenceId is already used by another payout of this account", {
        details: [{ path: "referenceId", message: "is already used by another payout of this account" }],
      });
    if (code === "23505" && constraint.includes("public_key"))
      return new ApiError("INVALID_DATA", "publicKey is already used by another account", {
        details: [{ path: "publicKey", message: "is already used by another account" }],
      });
    if (code === "23514" && constraint === "paykit_accounts_available")
      return new ApiError("INSUFFICIENT_FUNDS", "the available balance is too low for this payout");
    if (error instanceof TransactionEndedError) {
      this.#health?.failed(error);
      return new StoreUnavailableError(ENDED_BEFORE_COMMIT, true, { cause: error });
    }
    if (error instanceof CommitUnknownError) {
      this.#health?.failed(error);
      return new StoreUnavailableError(MAYBE_STORED, false, { cause: error });
    }
    // out of reach before the COMMIT was sent: nothing is stored, the request may run again
    if (this.#health?.failed(error) ?? false)
      return when === "commit"
        ? new StoreUnavailableError(MAYBE_STORED, false, { cause: error })
        : new StoreUnavailableError(NOT_STORED, true, { cause: error });
    return error;
  }

  async armPayoutSteps(atRealMs: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO paykit_due (kind, resource_id, account_id, epoch, clock, at_ms, due_ms)
       SELECT 'payout.advance', p.id, p.account_id, p.epoch, 'real', $1, $1
         FROM paykit_payouts p
         JOIN paykit_accounts a ON a.id = p.account_id AND a.epoch = p.epoch AND a.removed_at IS NULL
        WHERE p.status IN ('PENDING', 'APPROVED', 'PROCESSING')
          AND COALESCE((a.settings->>'autoAdvance')::boolean, true)
       ON CONFLICT (kind, resource_id) DO NOTHING`,
      [atRealMs],
    );
  }

  async claimAttempts(
    owner: string,
    options: { accountId?: string; ids?: readonly string[]; limit: number; leaseMs: number },
  ): Promise<ClaimedAttempt[]> {
    if (this.#refused !== null || this.#closed) return [];
    const now = this.#now();
    const query = claimQuery(owner, now, options);
    const rows = await this.#background(query.text, query.params);
    return rows
      .map((row) => {
        const delivery = deliveryFrom(row);
        const account = accountFrom(row);
        const accountNow = now + Number(row.sandbox_offset_ms) + account.clockOffsetMs;
        return {
          delivery,
          cycleAttempts: delivery.cycleAttempts,
          secrets: account.signingSecrets(accountNow),
          accountNow,
        };
      })
      .sort((a, b) =>
        a.delivery.accountId !== b.delivery.accountId
          ? a.delivery.accountId < b.delivery.accountId
            ? -1
            : 1
          : a.delivery.outOfOrder && b.delivery.outOfOrder
            ? b.delivery.seq - a.delivery.seq
            : a.delivery.seq - b.delivery.seq,
      );
  }

  async renewClaims(owner: string, ids: readonly string[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return;
    // only a lease this process still holds: one another process took over stays taken
    await this.#background(
      `UPDATE paykit_deliveries SET lease_until_ms = $3
        WHERE id = ANY($1::text[]) AND lease_owner = $2 AND state = 'pending'`,
      [[...ids], owner, this.#now() + leaseMs],
    );
  }

  async releaseClaims(owner: string): Promise<void> {
    await this.#background(
      "UPDATE paykit_deliveries SET lease_owner = NULL, lease_until_ms = NULL WHERE lease_owner = $1 AND state = 'pending'",
      [owner],
    );
  }

  async finishAttempt(owner: string, claim: ClaimedAttempt, outcome: DeliveryRecord): Promise<boolean> {
    const statement = deliveryUpdate(outcome, owner, claim.cycleAttempts);
    const { rows } = await this.#db.query(statement.text, statement.params ?? []);
    return rows.length > 0;
  }

  async releaseHolds(accountId?: string): Promise<void> {
    await this.#db.query(
      "UPDATE paykit_deliveries SET hold_until_ms = 0 WHERE state = 'pending' AND hold_until_ms > 0 AND ($1::text IS NULL OR account_id = $1)",
      [accountId ?? null],
    );
  }

  async openAttempts(filter: { accountId?: string; ids?: readonly string[] }): Promise<number> {
    const query = openAttemptsQuery(this.#now(), filter);
    const { rows } = await this.#db.query<Row>(query.text, query.params);
    return Number(rows[0]?.n ?? 0);
  }

  async dueAccounts(limit: number): Promise<string[]> {
    if (this.#refused !== null || this.#closed) return [];
    const now = this.#now();
    const rows = await this.#background(
      `SELECT DISTINCT d.account_id FROM paykit_due d
         JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch AND a.removed_at IS NULL
        WHERE (d.clock = 'account' AND d.due_ms <= $1 + (SELECT clock_offset_ms FROM paykit_sandbox WHERE id = 1))
           OR (d.clock = 'real' AND d.due_ms <= $1)
        LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => String(row.account_id));
  }

  nextWake(): number | undefined {
    return undefined;
  }

  /**
   * A statement of the background work (claims, due accounts): while the database is out of reach it
   * answers nothing, and the outage is logged once (store-health.ts), not once per poll.
   */
  async #background(text: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.#health?.down) return [];
    try {
      return (await this.#db.query<Row>(text, params)).rows;
    } catch (error) {
      if (this.#health?.failed(error) ?? false) return [];
      throw error;
    }
  }

  async holdListener(
    accountId: string,
    owner: string,
    listener: string,
    leaseMs: number,
    events: readonly string[] | null,
  ): Promise<{ retired: true } | { retired: false; previous: string | null }> {
    const now = this.#now();
    const { rows } = await this.#db.query<Row>(
      `WITH before AS (SELECT listener, retired FROM paykit_listeners WHERE account_id = $1 FOR UPDATE),
            upsert AS (
              INSERT INTO paykit_listeners (account_id, owner, listener, until_ms, events)
              SELECT $1, $2, $3, $4, $6::text[] WHERE NOT EXISTS (SELECT 1 FROM before WHERE $3 = ANY(retired))
              ON CONFLICT (account_id) DO UPDATE SET
                owner = EXCLUDED.owner, listener = EXCLUDED.listener, until_ms = EXCLUDED.until_ms,
                events = EXCLUDED.events,
                retired = CASE WHEN paykit_listeners.listener = EXCLUDED.listener THEN paykit_listeners.retired
                  ELSE (paykit_listeners.retired || paykit_listeners.listener)[greatest(1, cardinality(paykit_listeners.retired) + 2 - $5):] END
              RETURNING 1)
       SELECT (SELECT listener FROM before) AS previous,
              COALESCE((SELECT $3 = ANY(retired) FROM before), false) AS retired`,
      [accountId, owner, listener, now + leaseMs, RETIRED_KEPT, events === null ? null : [...events]],
    );
    const row = rows[0];
    if (row?.retired === true) return { retired: true };
    const previous = row?.previous === null || row?.previous === undefined ? null : String(row.previous);
    return { retired: false, previous: previous === listener ? null : previous };
  }

  async bringForward(
    accountId: string,
    events: readonly string[] | null,
    resourceIds?: readonly string[],
  ): Promise<void> {
    const query = bringForwardQuery(this.#now(), accountId, events, resourceIds);
    await this.#db.query(query.text, query.params);
  }

  async listenerOf(
    accountId: string,
  ): Promise<{ owner: string; listener: string; events: string[] | null } | null> {
    const { rows } = await this.#db.query<Row>(
      "SELECT owner, listener, events FROM paykit_listeners WHERE account_id = $1 AND until_ms > $2",
      [accountId, this.#now()],
    );
    const row = rows[0];
    if (row === undefined) return null;
    const events = row.events === null ? null : (row.events as string[]);
    return { owner: String(row.owner), listener: String(row.listener), events };
  }

  async dropListener(accountId: string, listener: string): Promise<void> {
    await this.#db.query("UPDATE paykit_listeners SET until_ms = 0 WHERE account_id = $1 AND listener = $2", [
      accountId,
      listener,
    ]);
  }

  async sweep(retentionMs: number): Promise<string[]> {
    if (this.#refused !== null || this.#closed) return [];
    const { rows } = await this.#db.query<Row>(
      `UPDATE paykit_accounts SET removed_at = now()
        WHERE removed_at IS NULL AND id IS DISTINCT FROM (SELECT default_account_id FROM paykit_sandbox WHERE id = 1)
          AND last_used_at < now() - make_interval(secs => $1::double precision / 1000)
        RETURNING id`,
      [retentionMs],
    );
    if (rows.length > 0) this.#purgeLater();
    return rows.map((row) => String(row.id));
  }

  async purge(): Promise<boolean> {
    if (this.#refused !== null || this.#closed) return false;
    return purgeBatch(this.#db);
  }

  /** Deletes what a reset or removal hid, a batch per transaction, in the background. */
  #purgeLater(): void {
    if (this.#purging !== null || this.#closed || this.#options.purgeAfterCommit === false) return;
    this.#purging = (async () => {
      try {
        while (!this.#closed && (await this.purge())) {}
      } catch (error) {
        this.#options.onError?.(error);
      } finally {
        this.#purging = null;
      }
    })();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#health?.stop();
    await this.#purging;
    if (!this.#options.keepDatabase) await this.#db.close();
    await this.#options.onClose?.();
  }
}
