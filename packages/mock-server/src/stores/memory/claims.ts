// Which deliveries' attempts a process may make now, in the memory store (the SQL stores say the same
// in one statement: stores/sql/claims.ts).
import type { DeliveryRecord } from "../../domain/deliveries.js";
import type { MemoryState } from "./memory-store.js";

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
  for (const delivery of candidates) {
    if (delivery.state !== "pending" || delivery.nextAttemptAt === null) continue;
    const account = state.accounts.get(delivery.accountId);
    if (account === undefined) continue;
    if (delivery.nextAttemptAt - state.offsetOf(account) > now) continue;
    if (delivery.outOfOrder && held.has(delivery.accountId)) continue;
    const lease = state.leases.get(delivery.id);
    if (lease !== undefined && lease.until > now) continue;
    const listener = state.listeners.get(delivery.accountId);
    const listened = listener !== undefined && listener.until > now;
    if (listened && owner !== null && listener.owner !== owner) continue;
    if (listened && hasOlderPending(state, delivery)) continue;
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

function hasOlderPending(state: MemoryState, delivery: DeliveryRecord): boolean {
  for (const other of state.records.get(delivery.accountId)?.deliveries ?? []) {
    if (other.seq >= delivery.seq) continue;
    if (other.resourceId === delivery.resourceId && other.state === "pending" && state.pending.has(other)) return true;
  }
  return false;
}
