// The reads of a SQL store's transaction (SqlTx, in sql-tx.ts, adds the writes): each read is one
// statement through an index, reading what it answers (a page: one past its limit, for the cursor).
// Records of an account's older epoch (a reset) or of a removed account are invisible to every read.
import type { Account } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import type { Fault } from "../../domain/faults.js";
import { encodeCursor, type ListPage, type PagePlace } from "../../domain/lists.js";
import type { PixKeyEntry } from "../../domain/pix-directory.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import type { DeliveryQuery, DueItem, PayoutListing, PayoutQuery } from "../../domain/repository.js";
import {
  accountFrom,
  deliveryFrom,
  dueFrom,
  jsonOf,
  payinFrom,
  payoutFrom,
  pixKeyFrom,
  type Row,
} from "./columns.js";
import { Conditions, LIVE, OF_ACCOUNT, pageFrom } from "./sql-queries.js";

/** The reads of one transaction of a SQL store. */
export abstract class SqlReads {
  /** Runs a read, after sending the writes made so far in the transaction. */
  protected abstract read(text: string, params: readonly unknown[]): Promise<Row[]>;

  async accountPage(place: PagePlace, onlyId?: string): Promise<ListPage<Account>> {
    const rows = await this.read(
      `SELECT * FROM paykit_accounts WHERE removed_at IS NULL AND ($1::text IS NULL OR id > $1)
         AND ($2::text IS NULL OR id = $2) ORDER BY id LIMIT $3`,
      [place.after ?? null, onlyId ?? null, place.limit + 1],
    );
    return pageFrom("accounts", rows.map(accountFrom), place.limit);
  }
  async payin(id: string): Promise<PayinRecord | null> {
    const [row] = await this.read(
      `SELECT r.record FROM paykit_payins r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : payinFrom(row);
  }
  async payinByThreeDS(transactionId: string): Promise<PayinRecord | null> {
    const [row] = await this.read(
      `SELECT r.record FROM paykit_payins r JOIN paykit_accounts a ON ${LIVE} WHERE r.three_ds_tx = $1`,
      [transactionId],
    );
    return row === undefined ? null : payinFrom(row);
  }
  async payinPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayinRecord>> {
    const rows = await this.page("paykit_payins", accountId, place, "r.id DESC", (c) => {
      if (place.after !== undefined) c.add("r.id < ?", place.after);
    });
    return pageFrom("payins", rows.map(payinFrom), place.limit);
  }
  /** One page of a record table, of one account (through its index) or of every account. */
  protected page(
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
    return this.read(`SELECT r.* FROM ${from} WHERE ${c.sql} ORDER BY ${order} LIMIT ${limit}`, c.params);
  }
  async nextBoletoNumber(): Promise<number> {
    const [row] = await this.read("SELECT nextval('paykit_boleto_seq') AS n", []);
    return Number(row?.n);
  }
  async payout(id: string): Promise<PayoutRecord | null> {
    const [row] = await this.read(
      `SELECT r.record FROM paykit_payouts r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : payoutFrom(row);
  }
  async payoutByReference(accountId: string, referenceId: string): Promise<PayoutRecord | null> {
    const [row] = await this.read(
      `SELECT r.record FROM paykit_payouts r WHERE ${OF_ACCOUNT(1)} AND r.reference_id = $2`,
      [accountId, referenceId],
    );
    return row === undefined ? null : payoutFrom(row);
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
    const rows = await this.read(
      `SELECT r.record FROM paykit_payouts r WHERE ${c.sql} ORDER BY r.created_ms DESC, r.id DESC OFFSET ${offset} LIMIT ${limit}`,
      c.params,
    );
    let total = query.total;
    if (total === undefined) {
      const counted = filtered();
      const [count] = await this.read(
        `SELECT count(*)::bigint AS n FROM paykit_payouts r WHERE ${counted.sql}`,
        counted.params,
      );
      total = Number(count?.n ?? 0);
    }
    return { records: rows.map(payoutFrom), total };
  }
  async payoutPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayoutRecord>> {
    const rows = await this.page("paykit_payouts", accountId, place, "r.id DESC", (c) => {
      if (place.after !== undefined) c.add("r.id < ?", place.after);
    });
    return pageFrom("payouts", rows.map(payoutFrom), place.limit);
  }
  async takeDue(accountId: string, accountNow: number, realNow: number, limit: number): Promise<DueItem[]> {
    const rows = await this.read(
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
    const [row] = await this.read(
      `SELECT EXISTS (SELECT 1 FROM paykit_due d JOIN paykit_accounts a ON a.id = d.account_id AND a.epoch = d.epoch
          WHERE d.account_id = $1 AND d.due_ms <= GREATEST($2 - a.clock_offset_ms, $3)
            AND ((d.clock = 'account' AND d.at_ms <= $2) OR (d.clock = 'real' AND d.at_ms <= $3))) AS due`,
      [accountId, accountNow, realNow],
    );
    return row?.due === true;
  }
  async delivery(id: string): Promise<DeliveryRecord | null> {
    const [row] = await this.read(
      `SELECT r.seq, r.record FROM paykit_deliveries r JOIN paykit_accounts a ON ${LIVE} WHERE r.id = $1`,
      [id],
    );
    return row === undefined ? null : deliveryFrom(row);
  }
  async deliveryPage(filter: DeliveryQuery, place: PagePlace): Promise<ListPage<DeliveryRecord>> {
    const newest = filter.order === "newest";
    const rows = await this.page(
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
  async faults(accountId?: string): Promise<Fault[]> {
    const rows = await this.read(
      "SELECT spec, remaining FROM paykit_faults WHERE remaining > 0 AND ($1::text IS NULL OR account_id = $1) ORDER BY id",
      [accountId ?? null],
    );
    return rows.map((row) => ({ ...(jsonOf(row.spec) as Fault), times: Number(row.remaining) }));
  }
  async pixKey(type: string, normalizedKey: string, accountId: string): Promise<PixKeyEntry | null> {
    const [row] = await this.read(
      `SELECT entry FROM paykit_pix_keys WHERE key_id = $1 AND (account_id = '' OR account_id = $2)
        ORDER BY account_id DESC LIMIT 1`,
      [`${type}:${normalizedKey}`, accountId],
    );
    return row === undefined ? null : pixKeyFrom(row);
  }
  async pixKeyPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PixKeyEntry>> {
    const rows = await this.read(
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
}
