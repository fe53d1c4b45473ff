// An account's due work in memory: one lane per kind and clock (work scheduled a fixed time after
// creation comes in time order, so a million PIX expiries are three arrays, not a million tasks), and
// a heap for what comes out of order (a clock set back, a reserve of another length).

import type { DueItem, DueKind } from "../../domain/repository.js";
import { MinHeap } from "../../internal/heap.js";

interface Lane {
  ats: number[];
  ids: string[];
  head: number;
}

interface HeapItem {
  at: number;
  seq: number;
  item: DueItem;
}

/** The due work of one account. Cancelled work is not removed: each kind checks its record when it runs. */
export class DueQueue {
  readonly #lanes = new Map<string, Lane>();
  readonly #heap = new MinHeap<HeapItem>();
  #seq = 0;
  /** The latest scheduled moment of each record and kind, so that a moved item runs once. */
  readonly #latest = new Map<string, number>();

  constructor(readonly accountId: string) {}

  get size(): number {
    let size = this.#heap.size;
    for (const lane of this.#lanes.values()) size += lane.ids.length - lane.head;
    return size;
  }

  add(item: DueItem): void {
    const key = `${item.kind}|${item.clock}`;
    // a payout's steps are rescheduled: only its latest moment counts
    if (item.kind === "payout.advance") this.#latest.set(item.resourceId, item.at);
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { ats: [], ids: [], head: 0 };
      this.#lanes.set(key, lane);
    }
    const last = lane.ats.length - 1;
    if (last < lane.head || lane.ats[last]! <= item.at) {
      lane.ats.push(item.at);
      lane.ids.push(item.resourceId);
    } else {
      this.#heap.push({ at: item.at, seq: this.#seq++, item });
    }
  }

  /** Drops a payout's pending step (it left the steps' statuses). */
  cancel(kind: DueKind, resourceId: string): void {
    if (kind === "payout.advance") this.#latest.delete(resourceId);
  }

  /** Takes the work due by `accountNow` (account clock) and `realNow` (real time), at most `limit`. */
  take(accountNow: number, realNow: number, limit: number): DueItem[] {
    const out: DueItem[] = [];
    for (const [key, lane] of this.#lanes) {
      const [kind, clock] = key.split("|") as [DueKind, "account" | "real"];
      const now = clock === "account" ? accountNow : realNow;
      while (out.length < limit && lane.head < lane.ats.length && lane.ats[lane.head]! <= now) {
        const item: DueItem = {
          kind,
          clock,
          accountId: this.accountId,
          resourceId: lane.ids[lane.head]!,
          at: lane.ats[lane.head]!,
        };
        lane.head += 1;
        if (this.#current(item)) out.push(item);
      }
      compact(lane);
    }
    for (;;) {
      const top = this.#heap.peek();
      if (top === undefined || out.length >= limit) break;
      const now = top.item.clock === "account" ? accountNow : realNow;
      if (top.at > now) break;
      this.#heap.pop();
      if (this.#current(top.item)) out.push(top.item);
    }
    return out.sort((a, b) => a.at - b.at);
  }

  #current(item: DueItem): boolean {
    if (item.kind !== "payout.advance") return true;
    if (this.#latest.get(item.resourceId) !== item.at) return false;
    this.#latest.delete(item.resourceId);
    return true;
  }

  /** The earliest due moment in real ms, given the account clock's offset from real time. */
  nextAt(accountOffsetMs: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const [key, lane] of this.#lanes) {
      if (lane.head >= lane.ats.length) continue;
      const at = lane.ats[lane.head]!;
      next = Math.min(next, key.endsWith("|account") ? at - accountOffsetMs : at);
    }
    const top = this.#heap.peek();
    if (top !== undefined)
      next = Math.min(next, top.item.clock === "account" ? top.at - accountOffsetMs : top.at);
    return next;
  }

  clear(): void {
    this.#lanes.clear();
    this.#heap.clear();
    this.#latest.clear();
  }
}

function compact(lane: Lane): void {
  if (lane.head === lane.ats.length) {
    lane.ats = [];
    lane.ids = [];
    lane.head = 0;
  } else if (lane.head >= 1024 && lane.head * 2 >= lane.ats.length) {
    lane.ats = lane.ats.slice(lane.head);
    lane.ids = lane.ids.slice(lane.head);
    lane.head = 0;
  }
}
