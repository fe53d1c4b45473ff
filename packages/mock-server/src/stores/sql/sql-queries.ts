// The statements and query pieces of the SQL stores' transactions (sql-tx.ts): which rows are visible,
// the caller's account read with a transaction's first round trip, the UPDATEs of an account and a
// delivery, and a page cut from rows fetched one past its limit.
import type { Account } from "../../domain/accounts.js";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { encodeCursor, type ListPage } from "../../domain/lists.js";
import { ACCOUNT_COLUMNS, settingsOf } from "./columns.js";
import type { SqlStatement } from "./sql-client.js";

/** The statuses after which a payin or a payout may go with the retention limit. */
export const FINAL_PAYINS = ["APPROVED", "REFUSED", "EXPIRED"];
export const DROPPABLE_PAYOUTS = ["COMPLETED", "FAILED", "REFUSED", "CANCELED", "REFUNDED"];

// A record is visible while its account is not removed and it belongs to the account's epoch.
export const LIVE = "a.id = r.account_id AND a.epoch = r.epoch AND a.removed_at IS NULL";
// The same for one account's records, as constants the planner reads the index with.
export const OF_ACCOUNT = (n: number) =>
  `r.account_id = $${n} AND r.epoch = (SELECT epoch FROM paykit_accounts WHERE id = $${n} AND removed_at IS NULL)`;

/** A query's conditions built from the filters given: each given one a condition, with its parameter. */
export class Conditions {
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

/** The UPDATE of an account's settings and columns. */
export function accountUpdate(account: Account): SqlStatement {
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
export function pageFrom<T extends { id: string }>(
  list: "accounts" | "payins" | "payouts" | "webhooks",
  items: T[],
  limit: number,
): ListPage<T> {
  const more = items.length > limit;
  const data = items.slice(0, limit);
  return { data, nextCursor: more && data.length > 0 ? encodeCursor(list, data.at(-1)!.id) : null };
}
