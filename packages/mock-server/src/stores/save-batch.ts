// What one save writes, from what changed in the state: the one definition both stores (the
// persister of a process holding the store, the shared store of many processes) write through.
import type { ChangeSet } from "../domain/changes.js";
import { nextDueOf } from "../domain/next-due.js";
import { savedAccount, savedPayin, savedPayout } from "../domain/saved.js";
import type { MockState } from "../domain/state.js";
import type { SaveBatch } from "./sql/state-store.js";

/** A save that writes nothing but `sandbox` (and whatever `extra` names). */
export function emptyBatch(sandbox: SaveBatch["sandbox"], extra: Partial<SaveBatch> = {}): SaveBatch {
  return {
    everything: false,
    resetAccounts: [],
    usedAccounts: [],
    removedAccounts: [],
    accounts: [],
    payins: [],
    deletedPayins: [],
    payouts: [],
    deletedPayouts: [],
    deliveries: [],
    deletedDeliveries: [],
    nextDue: [],
    sandbox,
    ...extra,
  };
}

/** What one save writes: the changed things as they are now, and the ones gone. */
export function batchOf(state: MockState, changes: ChangeSet): SaveBatch {
  const batch = emptyBatch(state.savedSandbox(), {
    everything: changes.everything,
    resetAccounts: [...changes.resetAccounts],
    usedAccounts: [...changes.usedAccounts],
    removedAccounts: [...changes.removedAccounts],
  });
  if (changes.everything) {
    // everything saved was dropped: what exists now is written whole (a fresh sandbox is small)
    for (const account of state.accounts.values()) {
      changes.accounts.add(account.id);
      for (const p of account.payins) changes.payins.add(p);
      for (const p of account.payouts) changes.payouts.add(p);
    }
    for (const d of state.outbox.list()) changes.deliveries.add(d.id);
  }
  for (const id of changes.accounts) {
    const account = state.accounts.get(id);
    if (account === undefined) continue;
    const balance = account.balance();
    batch.accounts.push({
      account: savedAccount(account, state.clockOffsetOf(id)),
      available: balance.available,
      reserved: balance.reserved,
      pending: balance.pending,
    });
  }
  for (const p of changes.payins) {
    if (state.payins.get(p.id) === p) batch.payins.push(savedPayin(p));
    else batch.deletedPayins.push(p.id);
  }
  for (const p of changes.payouts) {
    if (state.accounts.get(p.accountId)?.payoutsById.get(p.id) === p) batch.payouts.push(savedPayout(p));
    else batch.deletedPayouts.push(p.id);
  }
  // each account touched gets its next due time, so that it is read back in when that time comes
  const touched = new Set(changes.accounts);
  for (const id of changes.deliveries) {
    const saved = state.outbox.saved(id);
    if (saved === undefined) batch.deletedDeliveries.push(id);
    else {
      batch.deliveries.push(saved);
      touched.add(saved.accountId);
    }
  }
  for (const id of touched)
    if (state.accounts.has(id)) batch.nextDue.push({ id, dueMs: nextDueOf(state, id) });
  return batch;
}
