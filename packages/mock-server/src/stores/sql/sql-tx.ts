// A transaction of the SQL stores (PGlite, PostgreSQL): each read is one statement through an index,
// reading what it answers; writes wait and go with the COMMIT, in one round trip (a read that comes
// after a write sends the writes first). Records of an account's older epoch (a reset) or of a removed
// account are invisible to every read: the join on the account says so.
import type { Account } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { ApiError } from "../../domain/errors.js";
import {
  type Fault,
  type FaultAction,
  type FaultParams,
  faultAction,
  MAX_FAULTS,
} from "../../domain/faults.js";
import type { PixKeyEntry, RegisterPixKeyParams } from "../../domain/pix-directory.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import {
  DUE_KINDS,
  type DueItem,
  type DueKind,
  type SandboxSettings,
  type StoreTx,
} from "../../domain/repository.js";
import { pixKeyId } from "../memory/memory-state.js";
import type { AccountGate } from "./account-gate.js";
import {
  ACCOUNT_COLUMNS,
  accountFrom,
  DELIVERY_COLUMNS,
  insertOf,
  jsonOf,
  PAYIN_COLUMNS,
  PAYOUT_COLUMNS,
  payinJsonOf,
  payoutFrom,
  type Row,
  settingsOf,
  updateOf,
} from "./columns.js";
import type { OpenTransaction, SqlStatement } from "./sql-client.js";
import {
  accountUpdate,
  CALLER_QUERY,
  callerParams,
  DROPPABLE_PAYOUTS,
  deliveryUpdate,
  FINAL_PAYINS,
  OF_ACCOUNT,
} from "./sql-queries.js";
import { SqlReads } from "./sql-reads.js";

/**
 * The most payins, and the most payouts, one turn deletes for the retention limit (`--max-records`):
 * an account far over it comes down over its next requests, this many a request, never in one long
 * transaction (docs/decisions/shared-sandbox-max-records.md, "A batch per request on the SQL stores").
 */
export const TRIM_PER_TURN = 100;

/** What a store does once a transaction committed. */
export interface AfterCommitHooks {
  /** A reset or removal hid rows: the store deletes them later, a batch at a time. */
  hid(): void;
}

/** One transaction of a SQL store. */
export class SqlTx extends SqlReads implements StoreTx {
  readonly #tx: OpenTransaction;
  readonly #now: () => number;
  readonly #touch: (accountId: string) => boolean;
  /** Writes waiting for the commit: each made into statements then, from the objects as they are. */
  readonly #writes: Array<() => SqlStatement[]> = [];
  #caller: { publicKey: string; rows: Row[] } | undefined;
  readonly #gate: AccountGate | undefined;
  readonly #keepAliveMs: number | undefined;
  /** What ended the session while this transaction waited at a gate (its next read throws it). */
  #lostWhileWaiting: unknown = null;
  /** The accounts whose gate this transaction went through, with what ends its turn. */
  readonly #turns = new Map<string, () => void>();
  /** Whether writes of this transaction reached the database (and may hold rows) before its commit. */
  #wrote = false;
  hid = false;

  constructor(
    tx: OpenTransaction,
    readonly sandbox: SandboxSettings,
    now: () => number,
    /** Whether this account's last use is to be stamped now (a process stamps each at most once a minute). */
    touch: (accountId: string) => boolean,
    /** The process's gate to its accounts' row locks (account-gate.ts). */
    gate?: AccountGate,
    /**
     * How often a transaction waiting at the gate shows the database it is alive (less than the
     * server's idle-in-transaction limit); none, when the server has no such limit.
     */
    keepAliveMs?: number,
  ) {
    super();
    this.#tx = tx;
    this.#now = now;
    this.#touch = touch;
    this.#gate = gate;
    this.#keepAliveMs = keepAliveMs;
  }

  /**
   * Ends this transaction's turns at the accounts' gates: called once its COMMIT or ROLLBACK is on the
   * wire, when the server no longer needs this process to end the transaction.
   */
  leaveGates(): void {
    for (const leave of this.#turns.values()) leave();
    this.#turns.clear();
  }

  /** Waits for this process's turn at an account's row lock (account-gate.ts). */
  async #enterGate(accountId: string): Promise<void> {
    const gate = this.#gate;
    if (gate === undefined || this.#turns.has(accountId)) return;
    // A transaction that may hold rows already (another account's turn, its writes sent) waits in the
    // database's queue only: waiting here, it could hold up the transaction whose turn it waits for,
    // a deadlock the database would not see.
    const busy = gate.busy(accountId);
    if ((this.#turns.size > 0 || this.#wrote) && busy) return;
    const turn = gate.enter(accountId);
    this.#turns.set(accountId, busy ? await this.#keptAlive(turn) : await turn);
  }

  /**
   * Waits for `waiting` with a statement every `keepAliveMs`: this transaction sits idle in the
   * database meanwhile, and the turns ahead of it may together take longer than the server's limit,
   * which would end its session (and, after three runs, answer its request 503). A stopped process
   * sends nothing, so the limit still ends its sessions.
   */
  async #keptAlive<T>(waiting: Promise<T>): Promise<T> {
    const every = this.#keepAliveMs;
    if (every === undefined) return waiting;
    let inFlight = false;
    const timer = setInterval(() => {
      if (inFlight || this.#lostWhileWaiting !== null) return;
      inFlight = true;
      this.#tx.query("SELECT 1").then(
        () => {
          inFlight = false;
        },
        (error: unknown) => {
          this.#lostWhileWaiting = error;
        },
      );
    }, every);
    try {
      return await waiting;
    } finally {
      clearInterval(timer);
    }
  }

  realNow(): number {
    return this.#now();
  }

  /** The statements of the writes made, in order (the commit sends them). */
  statements(): SqlStatement[] {
    return this.#writes.splice(0).flatMap((write) => write());
  }

  protected async read(text: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.#lostWhileWaiting !== null) throw this.#lostWhileWaiting;
    if (this.#writes.length > 0) {
      this.#wrote = true;
      await this.#tx.batch(this.statements());
    }
    return (await this.#tx.query<Row>(text, params)).rows;
  }

  #write(write: () => SqlStatement[]): void {
    // the caller's row as first read is not what this transaction has once it writes
    this.#caller = undefined;
    this.#writes.push(write);
  }

  async account(id: string, options?: { lock?: boolean }): Promise<Account | null> {
    if (options?.lock) await this.#enterGate(id);
    const [row] = await this.read(
      `SELECT * FROM paykit_accounts WHERE id = $1 AND removed_at IS NULL${options?.lock ? " FOR UPDATE" : ""}`,
      [id],
    );
    return row === undefined ? null : accountFrom(row);
  }

  async caller(publicKey: string): Promise<{ account: Account; due: boolean } | null> {
    const prefetched = this.#caller;
    const [row] =
      prefetched?.publicKey === publicKey
        ? prefetched.rows
        : await this.read(CALLER_QUERY, callerParams(publicKey, this.#now()));
    return row === undefined ? null : { account: accountFrom(row), due: row.due_now === true };
  }

  /** The caller's row, read with the transaction's first round trip (`TxScope.caller`). */
  prefetchedCaller(publicKey: string, rows: Row[]): void {
    this.#caller = { publicKey, rows };
  }

  async accountByPublicKey(publicKey: string, options?: { lock?: boolean }): Promise<Account | null> {
    const [row] = await this.read(
      `SELECT * FROM paykit_accounts WHERE public_key = $1 AND removed_at IS NULL${options?.lock ? " FOR UPDATE" : ""}`,
      [publicKey],
    );
    return row === undefined ? null : accountFrom(row);
  }

  insertAccount(account: Account): void {
    this.#write(() => {
      const names = Object.keys(ACCOUNT_COLUMNS);
      const values = Object.values(ACCOUNT_COLUMNS).map((column) => column(account));
      const at = (i: number) => `$${i + 5}`;
      return [
        {
          text: `INSERT INTO paykit_accounts (id, public_key, secret_key_hash, settings, ${names.join(", ")})
                 VALUES ($1, $2, $3, $4::jsonb, ${names.map((_, i) => at(i)).join(", ")})`,
          params: [
            account.id,
            account.publicKey,
            account.secretKeyHash,
            JSON.stringify(settingsOf(account)),
            ...values,
          ],
        },
      ];
    });
  }

  updateAccount(account: Account): void {
    // several writes of one account in a turn: the last one, as the account is at the commit, suffices
    this.#write(() => [accountUpdate(account)]);
  }

  resetAccount(account: Account): void {
    this.hid = true;
    this.#write(() => [
      {
        ...accountUpdate(account),
        text: accountUpdate(account).text.replace("SET ", "SET epoch = epoch + 1, "),
      },
      { text: "DELETE FROM paykit_faults WHERE account_id = $1", params: [account.id] },
      { text: "DELETE FROM paykit_pix_keys WHERE account_id = $1", params: [account.id] },
    ]);
  }

  touchAccount(accountId: string): void {
    if (!this.#touch(accountId)) return;
    this.#write(() => [
      { text: "UPDATE paykit_accounts SET last_used_at = now() WHERE id = $1", params: [accountId] },
    ]);
  }

  insertPayin(payin: PayinRecord): void {
    this.#write(() => [insertOf("paykit_payins", PAYIN_COLUMNS, payin, payinJsonOf(payin))]);
  }

  updatePayin(payin: PayinRecord): void {
    this.#write(() => [updateOf("paykit_payins", PAYIN_COLUMNS, payin, payinJsonOf(payin))]);
  }

  insertPayout(payout: PayoutRecord): void {
    this.#write(() => [insertOf("paykit_payouts", PAYOUT_COLUMNS, payout, payout)]);
  }

  updatePayout(payout: PayoutRecord): void {
    this.#write(() => [updateOf("paykit_payouts", PAYOUT_COLUMNS, payout, payout)]);
  }

  async trimRecords(account: Account, max: number): Promise<{ payins: number; payouts: PayoutRecord[] }> {
    const gone: string[] = [];
    let payins = 0;
    // counted no further than a turn may trim: an account over the limit by far (a lower --max-records
    // on a store filled without it, payins that are not final yet) costs no request more than this
    const [count] = await this.read(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM paykit_payins r WHERE ${OF_ACCOUNT(1)} LIMIT $2) c`,
      [account.id, max + TRIM_PER_TURN],
    );
    const overPayins = Number(count?.n ?? 0) - max;
    if (overPayins > 0) {
      const rows = await this.read(
        `DELETE FROM paykit_payins WHERE id IN (
           SELECT r.id FROM paykit_payins r WHERE ${OF_ACCOUNT(1)} AND r.status = ANY($2::text[])
            ORDER BY r.id LIMIT $3)
         RETURNING id`,
        [account.id, FINAL_PAYINS, overPayins],
      );
      payins = rows.length;
      for (const row of rows) gone.push(String(row.id));
    }
    let payouts: PayoutRecord[] = [];
    const overPayouts = Math.min(account.payoutCount - max, TRIM_PER_TURN);
    if (overPayouts > 0) {
      const rows = await this.read(
        `DELETE FROM paykit_payouts WHERE id IN (
           SELECT r.id FROM paykit_payouts r WHERE ${OF_ACCOUNT(1)} AND r.status = ANY($2::text[])
            ORDER BY r.id LIMIT $3)
         RETURNING record`,
        [account.id, DROPPABLE_PAYOUTS, overPayouts],
      );
      payouts = rows.map(payoutFrom);
      for (const payout of payouts) gone.push(payout.id);
    }
    if (gone.length > 0) {
      this.#write(() => [
        // each through its index: the account's epoch, and every kind of due item, bound the scan
        {
          text: `DELETE FROM paykit_deliveries r WHERE ${OF_ACCOUNT(1)} AND r.resource_id = ANY($2::text[])`,
          params: [account.id, gone],
        },
        {
          text: "DELETE FROM paykit_due WHERE kind = ANY($2::text[]) AND resource_id = ANY($1::text[])",
          params: [gone, DUE_KINDS],
        },
      ]);
    }
    return { payins, payouts };
  }

  schedule(item: DueItem): void {
    this.#write(() => [
      {
        text: `INSERT INTO paykit_due (kind, resource_id, account_id, epoch, clock, at_ms, due_ms)
               SELECT $1, $2, a.id, a.epoch, $3, $4, CASE WHEN $3 = 'account' THEN $4 - a.clock_offset_ms ELSE $4 END
                 FROM paykit_accounts a WHERE a.id = $5
               ON CONFLICT (kind, resource_id) DO UPDATE
                 SET at_ms = EXCLUDED.at_ms, due_ms = EXCLUDED.due_ms, clock = EXCLUDED.clock, epoch = EXCLUDED.epoch`,
        params: [item.kind, item.resourceId, item.clock, item.at, item.accountId],
      },
    ]);
  }

  unschedule(kind: DueKind, resourceId: string): void {
    this.#write(() => [
      { text: "DELETE FROM paykit_due WHERE kind = $1 AND resource_id = $2", params: [kind, resourceId] },
    ]);
  }

  clockMoved(account: Account): void {
    this.#write(() => [
      {
        text: "UPDATE paykit_due SET due_ms = at_ms - $2 WHERE account_id = $1 AND clock = 'account'",
        params: [account.id, account.clockOffsetMs],
      },
      {
        text: `UPDATE paykit_deliveries SET due_ms = (record->>'nextAttemptAt')::bigint - $2
                WHERE account_id = $1 AND state = 'pending' AND record->>'nextAttemptAt' IS NOT NULL`,
        params: [account.id, account.clockOffsetMs],
      },
    ]);
  }

  insertDelivery(delivery: DeliveryRecord): void {
    this.#write(() => {
      const names = Object.keys(DELIVERY_COLUMNS);
      const values = Object.values(DELIVERY_COLUMNS).map((column) => column(delivery));
      const n = values.length;
      return [
        {
          // the due time on the sandbox clock: the account's time less the account clock's offset
          text: `INSERT INTO paykit_deliveries (${names.join(", ")}, record, epoch, due_ms)
                 SELECT ${names.map((_, i) => `$${i + 1}`).join(", ")}, $${n + 1}::jsonb, a.epoch, $${n + 2}::bigint - a.clock_offset_ms
                   FROM paykit_accounts a WHERE a.id = $${n + 3}`,
          params: [...values, JSON.stringify(delivery), delivery.nextAttemptAt, delivery.accountId],
        },
      ];
    });
  }

  updateDelivery(delivery: DeliveryRecord): void {
    this.#write(() => [deliveryUpdate(delivery, null)]);
  }

  async takeFault(method: string, path: string, accountId: string | null): Promise<FaultAction | null> {
    const [row] = await this.read(
      `UPDATE paykit_faults SET remaining = remaining - 1 WHERE id = (
         SELECT id FROM paykit_faults
          WHERE remaining > 0 AND (account_id IS NULL OR account_id = $3) AND (method IS NULL OR method = $1)
            AND (path = $2 OR (right(path, 1) = '*' AND starts_with($2, left(path, -1))))
          ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, spec, remaining`,
      [method, path, accountId],
    );
    if (row === undefined) return null;
    if (Number(row.remaining) <= 0)
      this.#write(() => [{ text: "DELETE FROM paykit_faults WHERE id = $1", params: [row.id] }]);
    return faultAction(jsonOf(row.spec) as Fault);
  }

  async addFault(params: FaultParams): Promise<Fault> {
    const [count] = await this.read("SELECT count(*)::int AS n FROM paykit_faults WHERE remaining > 0", []);
    if (Number(count?.n ?? 0) >= MAX_FAULTS) {
      throw new ApiError("INVALID_DATA", `at most ${MAX_FAULTS} faults may be armed; clear them first`, {
        details: [{ path: "", message: `at most ${MAX_FAULTS} faults may be armed` }],
      });
    }
    const method = params.method?.toUpperCase();
    const times = params.times ?? 1;
    const [row] = await this.read(
      `INSERT INTO paykit_faults (account_id, method, path, spec, remaining) VALUES ($1, $2, $3, '{}', $4) RETURNING id`,
      [params.accountId ?? null, method ?? null, params.path, times],
    );
    const fault: Fault = { ...params, id: `flt_${row?.id}`, times };
    if (method !== undefined) fault.method = method;
    this.#write(() => [
      {
        text: "UPDATE paykit_faults SET spec = $2::jsonb WHERE id = $1",
        params: [row?.id, JSON.stringify(fault)],
      },
    ]);
    return { ...fault };
  }

  clearFaults(accountId?: string): void {
    this.#write(() => [
      {
        text: "DELETE FROM paykit_faults WHERE $1::text IS NULL OR account_id = $1",
        params: [accountId ?? null],
      },
    ]);
  }

  registerPixKey(entry: PixKeyEntry & RegisterPixKeyParams): void {
    const { accountId, ...rest } = entry;
    const stored: PixKeyEntry = accountId === undefined ? rest : { ...rest, accountId };
    this.#write(() => [
      {
        text: `INSERT INTO paykit_pix_keys (account_id, key_id, entry) VALUES ($1, $2, $3::jsonb)
               ON CONFLICT (account_id, key_id) DO UPDATE SET entry = EXCLUDED.entry, seeded = false`,
        params: [accountId ?? "", pixKeyId(entry), JSON.stringify(stored)],
      },
    ]);
  }

  updateSandbox(settings: SandboxSettings): void {
    Object.assign(this.sandbox, settings);
    this.#write(() => [
      {
        text: `UPDATE paykit_sandbox SET clock_offset_ms = $1, default_account_id = $2, rate_limit = $3::jsonb,
                 faults_armed = $4 WHERE id = 1`,
        params: [
          this.sandbox.clockOffsetMs,
          this.sandbox.defaultAccountId,
          this.sandbox.rateLimit === null ? null : JSON.stringify(this.sandbox.rateLimit),
          this.sandbox.faultsArmed,
        ],
      },
    ]);
  }

  resetSandbox(defaultAccount: Account): void {
    this.hid = true;
    this.#write(() => [
      {
        text: "UPDATE paykit_accounts SET removed_at = now() WHERE removed_at IS NULL AND id <> $1",
        params: [defaultAccount.id],
      },
      { text: "DELETE FROM paykit_faults", params: [] },
      { text: "DELETE FROM paykit_pix_keys WHERE NOT seeded", params: [] },
      { text: "DELETE FROM paykit_listeners", params: [] },
    ]);
    this.resetAccount(defaultAccount);
    this.updateSandbox({
      clockOffsetMs: 0,
      defaultAccountId: defaultAccount.id,
      rateLimit: null,
      faultsArmed: false,
    });
  }
}
