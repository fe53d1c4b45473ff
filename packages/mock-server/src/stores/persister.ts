// Saves an engine's changes to a durable store, in order, a batch at a time: changes made while a save
// is running go into the next one (group commit), so a burst of requests costs a few transactions, not
// one each. A request is answered once the batch holding its changes is committed.
import { type ChangeSet, ChangeTracker } from "../domain/changes.js";
import type { StatePersistence } from "../domain/persistence.js";
import { restoreState } from "../domain/restore.js";
import { type SavedState, savedAccount, savedPayin, savedPayout } from "../domain/saved.js";
import type { MockState } from "../domain/state.js";
import type { SaveBatch } from "./sql/state-store.js";

/** Where batches go: one transaction each. */
export interface BatchWriter {
  write(batch: SaveBatch): Promise<void>;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Saves a {@link MockState}'s changes through a {@link BatchWriter}; see {@link StatePersistence}. */
export class Persister implements StatePersistence {
  readonly #writer: BatchWriter;
  readonly #saved: SavedState | null;
  readonly #onError: (error: unknown) => void;
  readonly #tracker = new ChangeTracker(() => this.#changed());
  #state: MockState | null = null;
  // Marks counted, and the count the last committed batch covered.
  #marked = 0;
  #written = 0;
  #writing = false;
  #scheduled = false;
  #stopped = false;
  #waiters: { target: number; waiter: Waiter }[] = [];
  /** Batches committed, for the bench and the tests. */
  batches = 0;

  constructor(writer: BatchWriter, saved: SavedState | null, onError: (error: unknown) => void = () => {}) {
    this.#writer = writer;
    this.#saved = saved;
    this.#onError = onError;
  }

  attach(state: MockState): void {
    if (this.#state !== null) throw new Error("a store serves one engine");
    this.#state = state;
    state.changes = this.#tracker;
    state.outbox.hooks = {
      changed: (id) => this.#tracker.delivery(id),
      saved: () => this.saved(),
    };
    if (this.#saved === null) {
      // a first start: the sandbox and its default account are the first save
      this.#tracker.everything();
      this.#tracker.account(state.defaultAccount.id);
    } else {
      restoreState(state, this.#saved);
    }
  }

  saved(): Promise<void> {
    if (this.#written >= this.#marked) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ target: this.#marked, waiter: { resolve, reject } });
      this.#schedule();
    });
  }

  /** Saves nothing more (the store is closing): later changes stay in memory. */
  stop(): void {
    this.#stopped = true;
  }

  #changed(): void {
    if (this.#stopped) return;
    this.#marked += 1;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing) return;
    this.#scheduled = true;
    // After the I/O callbacks of this turn of the event loop, not after this one callback: requests
    // that arrived together are saved together. (PGlite runs a transaction without yielding to I/O, so
    // a save started from a microtask would hold back every request behind it: one batch each.)
    setImmediate(() => {
      this.#scheduled = false;
      void this.#run();
    });
  }

  async #run(): Promise<void> {
    if (this.#writing || this.#state === null) return;
    this.#writing = true;
    try {
      while (this.#written < this.#marked) {
        const target = this.#marked;
        const changes = this.#tracker.take();
        try {
          await this.#writer.write(batchOf(this.#state, changes));
        } catch (error) {
          // kept for the next save; every request waiting is answered with the failure
          this.#tracker.putBack(changes);
          const waiting = this.#waiters;
          this.#waiters = [];
          for (const { waiter } of waiting) waiter.reject(error);
          this.#onError(error);
          return;
        }
        this.batches += 1;
        this.#written = target;
        const waiting = this.#waiters;
        this.#waiters = [];
        for (const w of waiting) {
          if (w.target <= target) w.waiter.resolve();
          else this.#waiters.push(w);
        }
      }
    } finally {
      this.#writing = false;
      if (this.#waiters.length > 0 && this.#written < this.#marked) this.#schedule();
    }
  }
}

/** What one save writes: the changed things as they are now, and the ones gone. */
function batchOf(state: MockState, changes: ChangeSet): SaveBatch {
  const batch: SaveBatch = {
    everything: changes.everything,
    resetAccounts: [...changes.resetAccounts],
    accounts: [],
    payins: [],
    deletedPayins: [],
    payouts: [],
    deletedPayouts: [],
    deliveries: [],
    deletedDeliveries: [],
    sandbox: state.savedSandbox(),
  };
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
  for (const id of changes.deliveries) {
    const saved = state.outbox.saved(id);
    if (saved === undefined) batch.deletedDeliveries.push(id);
    else batch.deliveries.push(saved);
  }
  return batch;
}
