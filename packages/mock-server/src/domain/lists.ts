import type { KnownPayinStatus, KnownPayoutStatus, Payin, Payout } from "@paykit/contract";
import type { Account } from "./accounts.js";
import {
  type PayinRecord,
  type PayoutRecord,
  payinJson,
  payoutJson,
  type StatusChange,
  statusHistoryOf,
} from "./records.js";

/** Bounds of the control API's payin and payout lists: a huge account never yields a giant page. */
export const CONTROL_LIST_LIMIT = {
  /** Entries answered when no `limit` is given. */
  default: 100,
  /** The largest `limit` accepted. */
  max: 1000,
} as const;

/** Which payins or payouts the control API lists: newest first, at most `limit`. */
export interface ListOptions {
  /** How many, newest first. @default 100 (at most 1000) */
  limit?: number;
}

/** A payin as the dashboard lists it: the record plus its account and status history. */
export type PayinView = Payin & {
  accountId: string;
  /** Creation status, then every transition, oldest first, on the mock clock. */
  statusHistory: StatusChange<KnownPayinStatus>[];
};

/** A payout as the dashboard lists it: the record plus its account and status history. */
export type PayoutView = Payout & {
  accountId: string;
  /** Creation status, then every transition, oldest first, on the mock clock. */
  statusHistory: StatusChange<KnownPayoutStatus>[];
};

/**
 * The `limit` newest records of id-sorted lists (ids are ULIDs on the mock clock, so id order is
 * time order): walks each list from its newest end and merges, so the cost is the page, not the
 * account's size.
 */
function newest<T extends { id: string }>(lists: readonly (readonly T[])[], limit: number): T[] {
  const cursors = lists.map((list) => list.length - 1);
  const out: T[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const at = cursors[i]!;
      if (at < 0) continue;
      if (best === -1 || lists[i]![at]!.id > lists[best]![cursors[best]!]!.id) best = i;
    }
    if (best === -1) break;
    out.push(lists[best]![cursors[best]!]!);
    cursors[best]! -= 1;
  }
  return out;
}

/** The newest payins of the given accounts, with account and status history. */
export function listPayinViews(accounts: readonly Account[], limit: number): PayinView[] {
  return newest(
    accounts.map((account) => account.payins),
    limit,
  ).map((payin: PayinRecord) => ({
    ...payinJson(payin),
    accountId: payin.accountId,
    statusHistory: statusHistoryOf(payin),
  }));
}

/** The newest payouts of the given accounts, with account and status history. */
export function listPayoutViews(accounts: readonly Account[], limit: number): PayoutView[] {
  return newest(
    accounts.map((account) => account.payouts),
    limit,
  ).map((payout: PayoutRecord) => ({
    ...payoutJson(payout),
    accountId: payout.accountId,
    statusHistory: statusHistoryOf(payout),
  }));
}
