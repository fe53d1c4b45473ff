// Which deliveries' attempts a process may make now, in the memory store (the SQL stores say the same
// in one statement: stores/sql/claims.ts). A listened account's events of one resource go oldest first: a
// later one waits while an older one is pending (the worker brings the older one forward once, when the
// later one is queued).
import type { DeliveryRecord } from "../../domain/deliveries.js";
import { eventMatches, eventName } from "../../domain/listeners.js";
import type { MemoryState } from "./memory-state.js";

/**
 * The deliveries of `candidates` whose attempt is due now and free for `owner`, in the order they
 * go: each account's events in queueing order, its out-of-order test mode's newest first. An attempt
 * is due when its time came on the account's clock, no hold is left on its account's out-of-order
 * batch, and no live lease holds it; an account whose `paykit-mock listen` another owner holds is
 * not this owner's to send, and a listened account's resource waits for its older events.
 */
export function claimable(
  state: MemoryState,
  candidates: readonly DeliveryRecord[],
  /** The process that would make the attempts; null: any process (counting what is open). */
  owner: string | null,
  now: number,
): DeliveryRecord[] {
  const out: DeliveryRecord[] = [];
  const held = new Set<string>();
  for (const delivery of state.pending) if (delivery.holdUntil > now) held.add(delivery.accountId);
  // a listened account's pending events per resource, oldest first: only the oldest goes, when any is due
  const queues = new Map<string, DeliveryRecord[]>();
  const taken = (d: DeliveryRecord) => {
    const listener = state.listeners.get(d.accountId);
    return (
      listener !== undefined &&
      listener.until > now &&
      eventMatches(listener.events, eventName(d.resource, d.status))
    );
  };
  for (const delivery of state.pending) {
    if (delivery.state !== "pending" || !taken(delivery)) continue;
    const key = `${delivery.accountId} ${delivery.resourceId}`;
    const queue = queues.get(key) ?? [];
    queue.push(delivery);
    queues.set(key, queue);
  }
  for (const queue of queues.values()) queue.sort((a, b) => a.seq - b.seq);
  const dueNow = (d: DeliveryRecord, offset: number) =>
    d.nextAttemptAt !== null && d.nextAttemptAt - offset <= now;
  for (const delivery of candidates) {
    if (delivery.state !== "pending" || delivery.nextAttemptAt === null) continue;
    const account = state.accounts.get(delivery.accountId);
    if (account === undefined) continue;
    const offset = state.offsetOf(account);
    if (delivery.outOfOrder && held.has(delivery.accountId)) continue;
    if (delivery.holdUntil > now) continue;
    const lease = state.leases.get(delivery.id);
    if (lease !== undefined && lease.until > now) continue;
    if (!dueNow(delivery, offset)) continue;
    if (taken(delivery)) {
      // the listener's process makes the events it takes, in order per resource; the others go to their URL
      const listener = state.listeners.get(delivery.accountId)!;
      if (owner !== null && listener.owner !== owner) continue;
      if (queues.get(`${delivery.accountId} ${delivery.resourceId}`)?.[0] !== delivery) continue;
    }
    out.push(delivery);
  }
  return out.sort((a, b) =>
    a.accountId !== b.accountId
      ? a.accountId < b.accountId
        ? -1
        : 1
      : a.outOfOrder && b.outOfOrder
        ? b.seq - a.seq
        : a.seq - b.seq,
  );
}
