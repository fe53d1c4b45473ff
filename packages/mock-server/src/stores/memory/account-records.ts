// One account's records in memory, kept in the orders its lists read them: payins and payouts sorted
// by id (ids are time-ordered), payouts also by referenceId and counted by status, so that a page of
// `GET /payout` costs the page, never the history behind it (docs/decisions/listing-payouts.md).
import { isFinalPayinStatus, isFinalPayoutStatus } from "@paykit/contract";
import type { DeliveryRecord } from "../../domain/deliveries.js";
import type { PayinRecord, PayoutRecord } from "../../domain/records.js";
import type { PayoutListing, PayoutQuery } from "../../domain/repository.js";
import { DueQueue } from "./due-queue.js";

/** An account's payins, payouts, deliveries and due work in memory. */
export class AccountRecords {
  /** Payins sorted by id, newest last. */
  readonly payins: PayinRecord[] = [];
  /** Payouts sorted by id, newest last. */
  readonly payouts: PayoutRecord[] = [];
  readonly payoutsById = new Map<string, PayoutRecord>();
  readonly payoutsByReference = new Map<string, PayoutRecord>();
  readonly payoutStatusCounts = new Map<string, number>();
  /** The status each payout is counted under (a write after a transition moves its count). */
  readonly #counted = new WeakMap<PayoutRecord, string>();
  /** Deliveries sorted by id, oldest first. */
  readonly deliveries: DeliveryRecord[] = [];
  readonly due: DueQueue;

  constructor(accountId: string) {
    this.due = new DueQueue(accountId);
  }

  addPayin(payin: PayinRecord): void {
    insertById(this.payins, payin);
  }

  addPayout(payout: PayoutRecord): void {
    insertById(this.payouts, payout);
    this.payoutsById.set(payout.id, payout);
    this.payoutsByReference.set(payout.referenceId, payout);
    this.#count(payout);
  }

  /** A payout was written: its status count follows its status. */
  payoutChanged(payout: PayoutRecord): void {
    const counted = this.#counted.get(payout);
    if (counted === payout.status) return;
    if (counted !== undefined)
      this.payoutStatusCounts.set(counted, (this.payoutStatusCounts.get(counted) ?? 1) - 1);
    this.#count(payout);
  }

  #count(payout: PayoutRecord): void {
    this.payoutStatusCounts.set(payout.status, (this.payoutStatusCounts.get(payout.status) ?? 0) + 1);
    this.#counted.set(payout, payout.status);
  }

  addDelivery(delivery: DeliveryRecord): void {
    insertById(this.deliveries, delivery);
  }

  /**
   * Drops the oldest payin in a final status and the oldest payout in a final status or COMPLETED (a
   * refund is the only way out of it, and a bound that kept every COMPLETED payout would bound nothing)
   * while there are more than `max` of each; answers what was dropped.
   */
  trim(max: number): { payins: PayinRecord[]; payouts: PayoutRecord[]; deliveries: DeliveryRecord[] } {
    const droppedPayins: PayinRecord[] = [];
    const droppedPayouts: PayoutRecord[] = [];
    while (this.payins.length > max) {
      const at = this.payins.findIndex((p) => isFinalPayinStatus(p.status));
      if (at < 0) break;
      droppedPayins.push(...this.payins.splice(at, 1));
    }
    while (this.payouts.length > max) {
      const at = this.payouts.findIndex((p) => isFinalPayoutStatus(p.status) || p.status === "COMPLETED");
      if (at < 0) break;
      const [payout] = this.payouts.splice(at, 1);
      if (payout === undefined) break;
      droppedPayouts.push(payout);
      this.payoutsById.delete(payout.id);
      if (this.payoutsByReference.get(payout.referenceId) === payout)
        this.payoutsByReference.delete(payout.referenceId);
      this.payoutStatusCounts.set(payout.status, (this.payoutStatusCounts.get(payout.status) ?? 1) - 1);
    }
    const droppedDeliveries: DeliveryRecord[] = [];
    if (droppedPayins.length + droppedPayouts.length > 0) {
      const gone = new Set<string>([...droppedPayins, ...droppedPayouts].map((r) => r.id));
      let kept = 0;
      for (const d of this.deliveries) {
        if (gone.has(d.resourceId)) droppedDeliveries.push(d);
        else this.deliveries[kept++] = d;
      }
      this.deliveries.length = kept;
    }
    return { payins: droppedPayins, payouts: droppedPayouts, deliveries: droppedDeliveries };
  }

  /**
   * GET /payout: newest first (createdAt desc, then id desc). Walks the id-sorted array from the newest
   * end and stops once the page is full; totals come from counters or binary search, so an unfiltered
   * page costs the same with 1,000 or 100,000 payouts.
   */
  payoutList(query: PayoutQuery): PayoutListing {
    const { skip, limit } = query;
    const list = this.payouts;
    const records: PayoutRecord[] = [];
    let total = 0;
    if (query.referenceId !== undefined) {
      const payout = this.payoutsByReference.get(query.referenceId);
      const matching = (payout ? [payout] : []).filter(
        (p) =>
          (query.status === undefined || p.status === query.status) &&
          p.createdAt >= (query.from ?? Number.NEGATIVE_INFINITY) &&
          p.createdAt <= (query.to ?? Number.POSITIVE_INFINITY),
      );
      return { records: matching.slice(skip, skip + limit), total: matching.length };
    }
    const lo = query.from !== undefined ? lowerBound(list, query.from) : 0;
    const hi = query.to !== undefined ? lowerBound(list, query.to + 1) : list.length;
    const status = query.status;
    if (status === undefined) {
      total = Math.max(0, hi - lo);
      for (let i = hi - 1 - skip; i >= lo && records.length < limit; i--) records.push(list[i]!);
      return { records, total };
    }
    const whole = lo === 0 && hi === list.length;
    if (whole) total = this.payoutStatusCounts.get(status) ?? 0;
    let seen = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const p = list[i]!;
      if (p.status !== status) continue;
      if (seen >= skip && records.length < limit) records.push(p);
      seen += 1;
      if (whole && (records.length >= limit || seen >= total)) break;
    }
    if (!whole) total = seen;
    return { records, total };
  }
}

/** Inserts a record into an id-sorted list: an append unless the mock clock was set back. */
export function insertById<T extends { id: string }>(list: T[], record: T): void {
  const last = list[list.length - 1];
  if (last === undefined || last.id < record.id) {
    list.push(record);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id < record.id) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, record);
}

/** First index whose createdAt is at least `ms` (payouts are sorted by createdAt). */
function lowerBound(list: readonly PayoutRecord[], ms: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.createdAt < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
