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
import { encodeCursor, type ListPage, type PagePlace } from "../../domain/lists.js";
import type { PixKeyEntry, RegisterPixKeyParams } from "../../domain/pix-directory.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import type {
  DeliveryQuery,
  DueItem,
  DueKind,
  PayoutListing,
  PayoutQuery,
  SandboxSettings,
  StoreTx,
} from "../../domain/repository.js";
import { pixKeyId } from "../memory/memory-state.js";
import {
  ACCOUNT_COLUMNS,
  accountFrom,
  DELIVERY_COLUMNS,
  deliveryFrom,
  dueFrom,
  insertOf,
  jsonOf,
  PAYIN_COLUMNS,
  PAYOUT_COLUMNS,
  payinFrom,
  payinJsonOf,
  payoutFrom,
  pixKeyFrom,
  type Row,
  settingsOf,
  updateOf,
} from "./columns.js";
import type { OpenTransaction, SqlStatement } from "./sql-client.js";

/** The statuses after which a payin or a payout may go with the retention limit. */
const FINAL_PAYINS = ["APPROVED", "REFUSED", "EXPIRED"];
const DROPPABLE_PAYOUTS = ["COMPLETED", "FAILED", "REFUSED", "CANCELED", "REFUNDED"];

// A record is visible while its account is not removed and it belongs to the account's epoch.
const LIVE = "a.id = r.account_id AND a.epoch = r.epoch AND a.removed_at IS NULL";
// The same for one account's records, as constants the planner reads the index with.
const OF_ACCOUNT = (n: number) =>
  `r.account_id = $${n} AND r.epoch = (SELECT epoch FROM paykit_accounts WHERE id = $${n} AND removed_at IS NULL)`;

/** A query's conditions built from the filters given: each given one a condition, with its parameter. */
class Conditions {
  readonly params: unknown[] = [];
  readonly #parts: string[] = [];
  /** Adds a condition; `?` stands for the value's parameter. */
  add(condition: string, value: unknown): this {
    this.params.push(value);
    this.#parts.push(condition.replaceAll("?", `$${this.params.length}`));
    return this;
  }
  /** Adds a condition without a parameter. */
  raw(condition: string): this {
    this.#parts.push(condition);
    return this;
  }
  /** The next parameter's placeholder, for what follows the conditions. */
  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
  get sql(): string {
    return this.#parts.length === 0 ? "true" : this.#parts.join(" AND ");
  }
}

/** What a store does once a transaction committed. */
export interface AfterCommitHooks {
  /** A reset or removal hid rows: the store deletes them later, a batch at a time. */
  hid(): void;
}

/**
 * The account a public key opens, and whether work of it is due (its clock's offset from the sandbox
 * row, so that the statement can go with the transaction's first round trip).
 */
export const CALLER_QUERY = `SELECT a.*, EXISTS (
    SELECT 1 FROM paykit_due d, (SELECT clock_offset_ms FROM paykit_sandbox WHERE id = 1) s
     WHERE d.account_id = a.id AND d.due_ms <= GREATEST($2::bigint + s.clock_offset_ms, $2::bigint)
       AND d.epoch = a.epoch
       AND (d.clock = 'account' OR d.due_ms <= $2::bigint)) AS due_now
    FROM paykit_accounts a WHERE a.public_key = $1 AND a.removed_at IS NULL`;

/** The parameters of CALLER_QUERY. */
export function callerParams(publicKey: string, nowMs: number): unknown[] {
  return [publicKey, nowMs];
}

/** One transaction of a SQL store. */
export class SqlTx implements StoreTx {
  readonly #tx: OpenTransaction;
  readonly #now: () => number;
  readonly #touch: (accountId: string) => boolean;
  /** Writes waiting for the commit: each made into statements then, from the objects as they are. */
  readonly #writes: Array<() => SqlStatement[]> = [];
  #caller: { publicKey: string; rows: Row[] } | undefined;
  hid = false;

  constructor(
    tx: OpenTransaction,
    readonly sandbox: SandboxSettings,
    now: () => number,
    /** Whether this account's last use is to be stamped now (a process stamps each at most once a minute). */
    touch: (accountId: string) => boolean,
  ) {
    this.#tx = tx;
    this.#now = now;
    this.#touch = touch;
  }

  realNow(): number {
    return this.#now();
  }

  /** The statements of the writes made, in order (the commit sends them). */
  statements(): SqlStatement[] {
    return this.#writes.splice(0).flatMap((write) => write());
  }

  async #read(text: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.#writes.length > 0) await this.#tx.batch(this.statements());
    return (await this.#tx.query<Row>(text, params)).rows;
  }

  #write(write: () => SqlStatement[]): void {
    // the caller's row as first read is not what this transaction has once it writes
    this.#caller = undefined;
    this.#writes.push(write);
  }

  async account(id: string, options?: { lock?: boolean }): Promise<Account | null> {
    const [row] = await this.#read(
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
        : await this.#read(CALLER_QUERY, callerParams(publicKey, this.#now()));
    return row === undefined ? null : { account: accountFrom(row), due: row.due_now === true };
  }

  /** The caller's row, read with the transaction's first round trip (`TxScope.caller`). */
  prefetchedCaller(publicKey: string, rows: Row[]): void {
    this.#caller = { publicKey, rows };
  }

  async accountByPublicKey(publicKey: string, options?: { lock?: boolean }): Promise<Account | null> {
    const [row] = await this.#read(
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

  async accountPage(place: PagePlace, onlyId?: string): Promise<ListPage<Account>> {
    const rows = await this.#read(
      `SELECT * FROM paykit_accounts WHERE removed_at IS NULL AND ($1::text IS NULL OR id > $1)
         AND ($2::text IS NULL OR id = $2) ORDER BY id LIMIT $3`,
      [place.after ?? null, onlyId ?? null, place.limit + 1],
    );
    return pageFrom("accounts", rows.map(accountFrom), place.limit);
  }

  async payin(id: string): Promise<PayinRecord | null> {
    const [row] = await this.#read(
      `SELECT r.record FROM paykit_payins r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : payinFrom(row);
  }

  async payinByThreeDS(transactionId: string): Promise<PayinRecord | null> {
    const [row] = await this.#read(
      `SELECT r.record FROM paykit_payins r JOIN paykit_accounts a ON ${LIVE} WHERE r.three_ds_tx = $1`,
      [transactionId],
    );
    return row === undefined ? null : payinFrom(row);
  }

  insertPayin(payin: PayinRecord): void {
    this.#write(() => [insertOf("paykit_payins", PAYIN_COLUMNS, payin, payinJsonOf(payin))]);
  }

  updatePayin(payin: PayinRecord): void {
    this.#write(() => [updateOf("paykit_payins", PAYIN_COLUMNS, payin, payinJsonOf(payin))]);
  }

  async payinPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayinRecord>> {
    const rows = await this.#page("paykit_payins", accountId, place, "r.id DESC", (c) => {
      if (place.after !== undefined) c.add("r.id < ?", place.after);
    });
    return pageFrom("payins", rows.map(payinFrom), place.limit);
  }

  /** One page of a record table, of one account (through its index) or of every account. */
  #page(
    table: string,
    accountId: string | undefined,
    place: PagePlace,
    order: string,
    filter: (conditions: Conditions) => void,
  ): Promise<Row[]> {
    const c = new Conditions();
    let from = `${table} r`;
    if (accountId === undefined) from += ` JOIN paykit_accounts a ON ${LIVE}`;
    else {
      c.params.push(accountId);
      c.raw(OF_ACCOUNT(1));
    }
    filter(c);
    const limit = c.next(place.limit + 1);
    return this.#read(`SELECT r.* FROM ${from} WHERE ${c.sql} ORDER BY ${order} LIMIT ${limit}`, c.params);
  }

  async nextBoletoNumber(): Promise<number> {
    const [row] = await this.#read("SELECT nextval('paykit_boleto_seq') AS n", []);
    return Number(row?.n);
  }

  async payout(id: string): Promise<PayoutRecord | null> {
    const [row] = await this.#read(
      `SELECT r.record FROM paykit_payouts r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : payoutFrom(row);
  }

  async payoutByReference(accountId: string, referenceId: string): Promise<PayoutRecord | null> {
    const [row] = await this.#read(
      `SELECT r.record FROM paykit_payouts r WHERE ${OF_ACCOUNT(1)} AND r.reference_id = $2`,
      [accountId, referenceId],
    );
    return row === undefined ? null : payoutFrom(row);
  }

  insertPayout(payout: PayoutRecord): void {
    this.#write(() => [insertOf("paykit_payouts", PAYOUT_COLUMNS, payout, payout)]);
  }

  updatePayout(payout: PayoutRecord): void {
    this.#write(() => [updateOf("paykit_payouts", PAYOUT_COLUMNS, payout, payout)]);
  }

  async payoutList(accountId: string, query: PayoutQuery): Promise<PayoutListing> {
    const filtered = () => {
      const c = new Conditions();
      c.params.push(accountId);
      c.raw(OF_ACCOUNT(1));
      if (query.status !== undefined) c.add("r.status = ?", query.status);
      if (query.referenceId !== undefined) c.add("r.reference_id = ?", query.referenceId);
      if (query.from !== undefined) c.add("r.created_ms >= ?", query.from);
      if (query.to !== undefined) c.add("r.created_ms <= ?", query.to);
      return c;
    };
    const c = filtered();
    const offset = c.next(query.skip);
    const limit = c.next(query.limit);
    const rows = await this.#read(
      `SELECT r.record FROM paykit_payouts r WHERE ${c.sql} ORDER BY r.created_ms DESC, r.id DESC OFFSET ${offset} LIMIT ${limit}`,
      c.params,
    );
    let total = query.total;
    if (total === undefined) {
      const counted = filtered();
      const [count] = await this.#read(
        `SELECT count(*)::bigint AS n FROM paykit_payouts r WHERE ${counted.sql}`,
        counted.params,
      );
      total = Number(count?.n ?? 0);
    }
    return { records: rows.map(payoutFrom), total };
  }

  async payoutPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayoutRecord>> {
    const rows = await this.#page("paykit_payouts", accountId, place, "r.id DESC", (c) => {
      if (place.after !== undefined) c.add("r.id < ?", place.after);
    });
    return pageFrom("payouts", rows.map(payoutFrom), place.limit);
  }

  async trimRecords(account: Account, max: number): Promise<{ payins: number; payouts: PayoutRecord[] }> {
    const gone: string[] = [];
    let payins = 0;
    // the limit bounds the rows: counting them reads at most the limit and what came since
    const [count] = await this.#read(
      `SELECT count(*)::int AS n FROM paykit_payins r WHERE ${OF_ACCOUNT(1)}`,
      [account.id],
    );
    const overPayins = Number(count?.n ?? 0) - max;
    if (overPayins > 0) {
      const rows = await this.#read(
        `DELETE FROM paykit_payins WHERE id IN (
           SELECT r.id FROM paykit_payins r JOIN paykit_accounts a ON ${LIVE}
            WHERE r.account_id = $1 AND r.status = ANY($2::text[]) ORDER BY r.id LIMIT $3)
         RETURNING id`,
        [account.id, FINAL_PAYINS, overPayins],
      );
      payins = rows.length;
      for (const row of rows) gone.push(String(row.id));
    }
    let payouts: PayoutRecord[] = [];
    const overPayouts = account.payoutCount - max;
    if (overPayouts > 0) {
      const rows = await this.#read(
        `DELETE FROM paykit_payouts WHERE id IN (
           SELECT r.id FROM paykit_payouts r JOIN paykit_accounts a ON ${LIVE}
            WHERE r.account_id = $1 AND r.status = ANY($2::text[]) ORDER BY r.id LIMIT $3)
         RETURNING record`,
        [account.id, DROPPABLE_PAYOUTS, overPayouts],
      );
      payouts = rows.map(payoutFrom);
      for (const payout of payouts) gone.push(payout.id);
    }
    if (gone.length > 0) {
      this.#write(() => [
        {
          text: "DELETE FROM paykit_deliveries WHERE account_id = $1 AND resource_id = ANY($2::text[])",
          params: [account.id, gone],
        },
        { text: "DELETE FROM paykit_due WHERE resource_id = ANY($1::text[])", params: [gone] },
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

  async takeDue(accountId: string, accountNow: number, realNow: number, limit: number): Promise<DueItem[]> {
    const rows = await this.#read(
      `DELETE FROM paykit_due WHERE (kind, resource_id) IN (
         SELECT d.kind, d.resource_id FROM paykit_due d JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch
          WHERE d.account_id = $1 AND d.due_ms <= GREATEST($2 - a.clock_offset_ms, $3)
            AND ((d.clock = 'account' AND d.at_ms <= $2) OR (d.clock = 'real' AND d.at_ms <= $3))
          ORDER BY d.account_id, d.due_ms LIMIT $4 FOR UPDATE OF d SKIP LOCKED)
       RETURNING *`,
      [accountId, accountNow, realNow, limit],
    );
    return rows.map(dueFrom).sort((a, b) => a.at - b.at);
  }

  async hasDue(accountId: string, accountNow: number, realNow: number): Promise<boolean> {
    const [row] = await this.#read(
      `SELECT EXISTS (SELECT 1 FROM paykit_due d JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch
          WHERE d.account_id = $1 AND d.due_ms <= GREATEST($2 - a.clock_offset_ms, $3)
            AND ((d.clock = 'account' AND d.at_ms <= $2) OR (d.clock = 'real' AND d.at_ms <= $3))) AS due`,
      [accountId, accountNow, realNow],
    );
    return row?.due === true;
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

  async delivery(id: string): Promise<DeliveryRecord | null> {
    const [row] = await this.#read(
      `SELECT r.seq, r.record FROM paykit_deliveries r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : deliveryFrom(row);
  }

  updateDelivery(delivery: DeliveryRecord): void {
    this.#write(() => [deliveryUpdate(delivery, null)]);
  }

  async deliveryPage(filter: DeliveryQuery, place: PagePlace): Promise<ListPage<DeliveryRecord>> {
    const newest = filter.order === "newest";
    const rows = await this.#page(
      "paykit_deliveries",
      filter.accountId,
      place,
      `r.id ${newest ? "DESC" : "ASC"}`,
      (c) => {
        if (filter.resourceId !== undefined) c.add("r.resource_id = ?", filter.resourceId);
        if (filter.status !== undefined) c.add("r.record->>'status' = ?", filter.status);
        if (filter.state !== undefined) c.add("r.state = ?", filter.state);
        if (place.after !== undefined) c.add(`r.id ${newest ? "<" : ">"} ?`, place.after);
      },
    );
    return pageFrom("webhooks", rows.map(deliveryFrom), place.limit);
  }

  async takeFault(method: string, path: string, accountId: string | null): Promise<FaultAction | null> {
    const [row] = await this.#read(
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
    const [count] = await this.#read("SELECT count(*)::int AS n FROM paykit_faults WHERE remaining > 0", []);
    if (Number(count?.n ?? 0) >= MAX_FAULTS) {
      throw new ApiError("INVALID_DATA", `at most ${MAX_FAULTS} faults may be armed; clear them first`, {
        details: [{ path: "", message: `at most ${MAX_FAULTS} faults may be armed` }],
      });
    }
    const method = params.method?.toUpperCase();
    const times = params.times ?? 1;
    const [row] = await this.#read(
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

  async faults(accountId?: string): Promise<Fault[]> {
    const rows = await this.#read(
      "SELECT spec, remaining FROM paykit_faults WHERE remaining > 0 AND ($1::text IS NULL OR account_id = $1) ORDER BY id",
      [accountId ?? null],
    );
    return rows.map((row) => ({ ...(jsonOf(row.spec) as Fault), times: Number(row.remaining) }));
  }

  clearFaults(accountId?: string): void {
    this.#write(() => [
      {
        text: "DELETE FROM paykit_faults WHERE $1::text IS NULL OR account_id = $1",
        params: [accountId ?? null],
      },
    ]);
  }

  async pixKey(type: string, normalizedKey: string, accountId: string): Promise<PixKeyEntry | null> {
    const [row] = await this.#read(
      `SELECT entry FROM paykit_pix_keys WHERE key_id = $1 AND (account_id = '' OR account_id = $2)
        ORDER BY account_id DESC LIMIT 1`,
      [`${type}:${normalizedKey}`, accountId],
    );
    return row === undefined ? null : pixKeyFrom(row);
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

  async pixKeyPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PixKeyEntry>> {
    const rows = await this.#read(
      `SELECT entry, place FROM (
         SELECT entry, (CASE account_id WHEN '' THEN '0' ELSE '1' END) || ':' || (entry->>'type') || ':' || (entry->>'key') AS place
           FROM paykit_pix_keys WHERE account_id = '' OR account_id = $1) k
        WHERE $2::text IS NULL OR place COLLATE "C" > $2 ORDER BY place COLLATE "C" LIMIT $3`,
      [accountId ?? "", place.after ?? null, place.limit + 1],
    );
    const more = rows.length > place.limit;
    const data = rows.slice(0, place.limit);
    return {
      data: data.map(pixKeyFrom),
      nextCursor: more && data.length > 0 ? encodeCursor("pixKeys", String(data.at(-1)!.place)) : null,
    };
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

/** The UPDATE of an account's settings and columns. */
function accountUpdate(account: Account): SqlStatement {
  const entries = Object.entries(ACCOUNT_COLUMNS);
  const sets = entries.map(([name], i) => `${name} = $${i + 3}`);
  return {
    text: `UPDATE paykit_accounts SET settings = $2::jsonb, ${sets.join(", ")} WHERE id = $1`,
    params: [
      account.id,
      JSON.stringify(settingsOf(account)),
      ...entries.map(([, column]) => column(account)),
    ],
  };
}

/**
 * The UPDATE of a delivery as it now is, its due time on the sandbox clock, its lease let go; when
 * `owner` is given, only while that process's claim holds (of the same attempt).
 */
export function deliveryUpdate(delivery: DeliveryRecord, owner: string | null, cycle?: number): SqlStatement {
  const params: unknown[] = [
    delivery.id,
    delivery.state,
    delivery.holdUntil,
    delivery.nextAttemptAt,
    JSON.stringify(delivery),
    delivery.accountId,
  ];
  let claim = "";
  if (owner !== null) {
    params.push(owner, cycle);
    claim = " AND lease_owner = $7 AND (record->>'cycleAttempts')::int = $8";
  }
  return {
    text: `UPDATE paykit_deliveries SET state = $2, hold_until_ms = $3,
             due_ms = $4::bigint - (SELECT clock_offset_ms FROM paykit_accounts WHERE id = $6),
             record = $5::jsonb, lease_owner = NULL, lease_until_ms = NULL
           WHERE id = $1${claim} RETURNING id`,
    params,
  };
}

/** A page from rows fetched one past the limit: its entries, and a cursor after the last when more follow. */
function pageFrom<T extends { id: string }>(
  list: "accounts" | "payins" | "payouts" | "webhooks",
  items: T[],
  limit: number,
): ListPage<T> {
  const more = items.length > limit;
  const data = items.slice(0, limit);
  return { data, nextCursor: more && data.length > 0 ? encodeCursor(list, data.at(-1)!.id) : null };
}
