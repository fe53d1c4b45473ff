import type { KnownPayinStatus, KnownPayoutStatus, Payin, Payout } from "@paykit/contract";
import { invalidData } from "./errors.js";
import {
  type PayinRecord,
  type PayoutRecord,
  payinJson,
  payoutJson,
  type StatusChange,
  statusHistoryOf,
} from "./records.js";

/**
 * Bounds of every control API list (payins, payouts, the delivery log, accounts, PIX keys): a page holds
 * at most `max` entries whatever the account's history (docs/decisions/shared-sandbox-control-lists-page.md).
 */
export const CONTROL_LIST_LIMIT = {
  /** Entries answered when no `limit` is given. */
  default: 100,
  /** The largest `limit` accepted; a larger one is refused with INVALID_DATA naming `limit`. */
  max: 1000,
} as const;

/** Which page of a control list to answer: at most `limit` entries, after `cursor`. */
export interface ListOptions {
  /** How many entries, at most. @default 100 (at most 1000) */
  limit?: number;
  /**
   * Where to go on: the `nextCursor` of the previous page (opaque). Records created meanwhile never
   * shift the pages after it.
   */
  cursor?: string;
}

/** One page of a control list: `nextCursor` is null on the last page. */
export interface ListPage<T> {
  /** The page's entries, in the list's order. */
  data: T[];
  /** Pass as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
}

/** The lists of the control API that page, as `listPage` and `listAll` name them. */
export type ControlListName = "accounts" | "payins" | "payouts" | "webhooks" | "pixKeys";

/** The checked place of a page: its size, and the key after which it starts (none: the first page). */
export interface PagePlace {
  limit: number;
  after: string | undefined;
}

// A cursor is `list:key` in base64url: opaque to callers, checked on the way back in, and naming its
// list so that a payins cursor handed to the delivery log is refused rather than misread.
const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,2800}$/;

/** The cursor that starts the page after `key` of `list`. */
export function encodeCursor(list: ControlListName, key: string): string {
  const bytes = new TextEncoder().encode(`${list}:${key}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The key a cursor of `list` starts after; INVALID_DATA naming `cursor` when it is not one of ours. */
export function decodeCursor(list: ControlListName, cursor: string): string {
  const refuse = () =>
    invalidData("cursor", `is not a cursor of this list (pass the nextCursor of a ${list} page)`);
  if (!CURSOR_TEXT.test(cursor)) throw refuse();
  let text: string;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refuse();
  }
  const prefix = `${list}:`;
  if (!text.startsWith(prefix) || text.length === prefix.length) throw refuse();
  return text.slice(prefix.length);
}

/**
 * One page of key-sorted lists merged (each list ascending by key; ids are ULIDs on the mock clock,
 * so id order is time order): `newest` walks down from below `after`, `oldest` up from above it. Each
 * list is entered by binary search and the page is merged with a heap, so the cost is the page and
 * the number of lists, never the history behind them. A record added meanwhile lands on its own side
 * of `after` and never moves an entry between later pages.
 */
export function pageOf<T>(
  list: ControlListName,
  lists: readonly (readonly T[])[],
  keyOf: (item: T) => string,
  order: "newest" | "oldest",
  place: PagePlace,
): ListPage<T> {
  const down = order === "newest";
  const heads: { list: readonly T[]; at: number; key: string }[] = [];
  for (const items of lists) {
    const at = startOf(items, keyOf, down, place.after);
    if (at >= 0 && at < items.length) heads.push({ list: items, at, key: keyOf(items[at]!) });
  }
  // "first" is the head that comes next in the page's order.
  const first = (a: { key: string }, b: { key: string }) => (down ? a.key > b.key : a.key < b.key);
  const heap = new KeyHeap(heads, first);
  const data: T[] = [];
  // One entry past the page tells whether another page follows, without an empty last page.
  while (data.length <= place.limit) {
    const head = heap.peek();
    if (head === undefined) break;
    data.push(head.list[head.at]!);
    head.at += down ? -1 : 1;
    if (head.at < 0 || head.at >= head.list.length) heap.pop();
    else {
      head.key = keyOf(head.list[head.at]!);
      heap.siftDown();
    }
  }
  if (data.length <= place.limit) return { data, nextCursor: null };
  data.length = place.limit;
  return { data, nextCursor: encodeCursor(list, keyOf(data[data.length - 1]!)) };
}

// Where a walk over an ascending list starts: the last index below `after` going down, the first above
// it going up (the whole list without `after`).
function startOf<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  down: boolean,
  after: string | undefined,
): number {
  if (after === undefined) return down ? items.length - 1 : 0;
  let lo = 0;
  let hi = items.length;
  // first index whose key is >= after (down) or > after (up)
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const key = keyOf(items[mid]!);
    if (down ? key < after : key <= after) lo = mid + 1;
    else hi = mid;
  }
  return down ? lo - 1 : lo;
}

/** A binary heap of list heads, the next in page order on top. */
class KeyHeap<H> {
  readonly #items: H[];
  readonly #first: (a: H, b: H) => boolean;

  constructor(items: H[], first: (a: H, b: H) => boolean) {
    this.#items = items;
    this.#first = first;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }
  peek(): H | undefined {
    return this.#items[0];
  }
  pop(): void {
    const last = this.#items.pop();
    if (this.#items.length > 0 && last !== undefined) {
      this.#items[0] = last;
      this.#down(0);
    }
  }
  /** The top's key changed: moves it to its place. */
  siftDown(): void {
    this.#down(0);
  }
  #down(from: number): void {
    const items = this.#items;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < items.length && this.#first(items[l]!, items[best]!)) best = l;
      if (r < items.length && this.#first(items[r]!, items[best]!)) best = r;
      if (best === i) return;
      [items[i], items[best]] = [items[best]!, items[i]!];
      i = best;
    }
  }
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

/** A payin as the dashboard lists it: the record plus its account and status history. */
export function payinView(payin: PayinRecord): PayinView {
  return { ...payinJson(payin), accountId: payin.accountId, statusHistory: statusHistoryOf(payin) };
}

/** A payout as the dashboard lists it: the record plus its account and status history. */
export function payoutView(payout: PayoutRecord): PayoutView {
  return { ...payoutJson(payout), accountId: payout.accountId, statusHistory: statusHistoryOf(payout) };
}
