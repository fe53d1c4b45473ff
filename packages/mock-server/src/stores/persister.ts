// Saves an engine's changes to a durable store, in order, a batch at a time: changes made while a save
// is running go into the next one (group commit), so a burst of requests costs a few transactions, not
// one each. A request is answered once the batch holding its changes is committed. A batch that fails
// is not tried again: the engine's state then holds changes the store does not, so every request still
// waiting, and every later one, is answered 503 (not stored), no webhook of them is sent, and the state
// goes back to what the store holds (read back in place).
import { type ChangeSet, ChangeTracker, touches } from "../domain/changes.js";
import type { AccountNeeds, RequestHold } from "../domain/persistence.js";
import { changesNotStored, type StatePersistence } from "../domain/persistence.js";
import { restoreStart, restoreState } from "../domain/restore.js";
import type { SavedStart, SavedState } from "../domain/saved.js";
import type { MockState } from "../domain/state.js";
import {
  AccountLoader,
  type AccountLoaderOptions,
  type AccountLoads,
  type AccountSource,
} from "./account-loader.js";
import { batchOf } from "./save-batch.js";
import { CommitUnknownError } from "./sql/sql-client.js";
import type { SaveBatch } from "./sql/state-store.js";

/** Where batches go: one transaction each. */
export interface BatchWriter {
  write(batch: SaveBatch): Promise<void>;
}

/** A store's side of the retention sweep: its clock picks the unused accounts, its purge deletes their rows. */
export interface StoreSweeper {
  /** The accounts, `keep` aside, unused for `retentionMs` on the store's clock. */
  unusedAccounts(retentionMs: number, keep: string): Promise<string[]>;
  /** Deletes the rows no reader sees any more (removed accounts, epochs before a reset), in batches. */
  purge(stop: () => boolean): Promise<number>;
}

/** What a persister does once a save failed and its engine's state holds changes its store does not. */
export type AfterFailedSave =
  /** Reads the committed state back into the same engine (`--data-dir`: one process holds the store). */
  | { reload: () => Promise<Saved | null> }
  /** Hands over: the caller drops the engine, and whoever opens the store next reads it back. */
  | { giveUp: (error: unknown) => void };

/** The pause between two reads of the store after failed saves, so a store that keeps failing is not hammered. */
const RELOAD_PAUSE_MS = 1_000;

/**
 * What a store hands a new engine: the whole state, or (a store that loads accounts on use, with an
 * {@link AccountSource}) the sandbox and its default account.
 */
export type Saved = SavedState | SavedStart;

/** Where a persister reads accounts on use, and how many records its idle accounts may hold. */
export interface LoadOnUse extends AccountLoaderOptions {
  source: AccountSource;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Saves a {@link MockState}'s changes through a {@link BatchWriter}; see {@link StatePersistence}. */
export class Persister implements StatePersistence {
  readonly #writer: BatchWriter;
  readonly #saved: Saved | null;
  readonly #loadOnUse: LoadOnUse | null;
  #loader: AccountLoader | null = null;
  /** The changes of the save under way, until it is done. */
  #saving: ChangeSet | null = null;
  /** A save under way removes accounts or resets the sandbox: reads of accounts wait for it. */
  #structural: Promise<void> | null = null;
  readonly #onError: (error: unknown) => void;
  readonly #afterFailure: AfterFailedSave;
  readonly #sweeper: StoreSweeper | null;
  readonly #tracker = new ChangeTracker(() => this.#changed());
  #state: MockState | null = null;
  // Marks counted, and the count the last committed batch covered.
  #marked = 0;
  #written = 0;
  #writing = false;
  #scheduled = false;
  #stopped = false;
  /** A save failed and the state was not read back yet: nothing is saved, every request answers 503. */
  #failed = false;
  #changedAfterStop = false;
  #reloading: Promise<void> | null = null;
  #purging: Promise<void> | null = null;
  #lastReload = 0;
  #waiters: { target: number; waiter: Waiter }[] = [];
  /** Batches committed, for the bench and the tests. */
  batches = 0;
  /** Times the state was read back from the store after a failed save. */
  reloads = 0;

  /** Changes marked so far: two readings tell whether anything changed between them. */
  get marks(): number {
    return this.#marked;
  }

  constructor(
    writer: BatchWriter,
    saved: Saved | null,
    onError: (error: unknown) => void = () => {},
    afterFailure: AfterFailedSave = { giveUp: () => {} },
    sweeper: StoreSweeper | null = null,
    loadOnUse: LoadOnUse | null = null,
  ) {
    this.#loadOnUse = loadOnUse;
    this.#sweeper = sweeper;
    this.#writer = writer;
    this.#saved = saved;
    this.#onError = onError;
    this.#afterFailure = afterFailure;
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
      restore(state, this.#saved);
      // what a process that stopped mid-purge left behind (retention off or not)
      void this.#purge();
    }
    const loadOnUse = this.#loadOnUse;
    if (loadOnUse !== null) {
      this.#loader = new AccountLoader(
        state,
        loadOnUse.source,
        (error) => this.#onError(error),
        (accountId) => this.#holdsAll(accountId),
        // a retention limit counts an account's records in memory: it needs them all
        { ...loadOnUse, alwaysWhole: Number.isFinite(state.maxRecords) },
      );
      this.#loader.restarted();
      this.#loader.start();
    }
  }

  /**
   * Whether the store holds every change of an account (none waits for a save, none is being saved):
   * only then may it leave memory.
   */
  #holdsAll(accountId: string): boolean {
    if (this.#failed || this.#stopped) return false;
    const deliveryAccount = (id: string) => this.#state?.outbox.accountOf(id) ?? null;
    if (this.#tracker.touches(accountId, deliveryAccount)) return false;
    const saving = this.#saving;
    return saving === null || !touches(saving, accountId, deliveryAccount);
  }

  /** Accounts read in and taken out by the loader so far (0 without one). */
  get accountLoads(): AccountLoads {
    return {
      loads: this.#loader?.loads ?? 0,
      unloads: this.#loader?.unloads ?? 0,
      caughtUp: 0,
      readAgain: 0,
    };
  }

  /** Takes idle accounts out of memory now, past the cache's records (the tests' handle on it). */
  evictIdle(): number {
    return this.#loader?.evict() ?? 0;
  }

  async prepare(needs: AccountNeeds): Promise<RequestHold> {
    const loader = this.#loader;
    if (loader === null) return { release: () => {} };
    // a removal or sandbox reset not committed yet: the store would still show what it removes
    while (this.#structural !== null) await this.#structural.catch(() => {});
    return { release: await loader.prepare(needs) };
  }

  saved(): Promise<void> {
    if (this.#failed) {
      // a reload that failed is tried again when the next request comes
      if ("reload" in this.#afterFailure) this.#reload(this.#afterFailure.reload);
      return Promise.reject(changesNotStored("no"));
    }
    // a change made after the store stopped saving is never saved
    if (this.#stopped && (this.#changedAfterStop || this.#written < this.#marked))
      return Promise.reject(changesNotStored("no"));
    if (this.#written >= this.#marked) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ target: this.#marked, waiter: { resolve, reject } });
      this.#schedule();
    });
  }

  /**
   * The retention sweep on a durable store: removes the accounts the store's clock finds unused for
   * `retentionMs` (unless this process saw one used since its last saved stamp), saves that, then
   * deletes their rows a batch at a time. Answers the accounts removed.
   */
  async sweep(retentionMs: number): Promise<string[]> {
    const state = this.#state;
    if (this.#sweeper === null || state === null || this.#stopped || this.#failed) return [];
    const ids = await this.#sweeper.unusedAccounts(retentionMs, state.defaultAccount.id);
    const removed = ids.filter((id) => {
      if (state.accounts.has(id)) {
        if (state.usedWithin(id, retentionMs) || !state.removeAccount(id)) return false;
      } else if (this.#loader !== null) {
        // not in memory: removed in the store alone
        state.changes?.accountRemoved(id);
      } else return false;
      this.#loader?.removed(id);
      return true;
    });
    if (removed.length > 0) await this.saved();
    // also finishes a purge an earlier process left half done
    await this.#purge();
    return removed;
  }

  /**
   * Deletes, a batch per transaction, what removals and resets left behind; one purge at a time, and
   * one asked for while another runs finds the new work too (it runs until nothing is left).
   */
  #purge(): Promise<void> {
    const sweeper = this.#sweeper;
    if (sweeper === null) return Promise.resolve();
    this.#purging ??= sweeper
      .purge(() => this.#stopped)
      .then(
        () => {},
        (error: unknown) => {
          if (!this.#stopped) this.#onError(error);
        },
      )
      .finally(() => {
        this.#purging = null;
      });
    return this.#purging;
  }

  /** Saves nothing more (the store is closing): a later change is never saved, and a request that made one hears 503. */
  stop(): void {
    this.#stopped = true;
    this.#loader?.stop();
  }

  #changed(): void {
    if (this.#stopped) {
      this.#changedAfterStop = true;
      return;
    }
    this.#marked += 1;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing || this.#failed) return;
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
    if (this.#writing || this.#failed || this.#state === null) return;
    this.#writing = true;
    try {
      while (this.#written < this.#marked) {
        const target = this.#marked;
        const changes = this.#tracker.take();
        this.#saving = changes;
        let batch: SaveBatch;
        const structural = changes.everything || changes.removedAccounts.size > 0;
        let settle = () => {};
        if (structural) this.#structural = new Promise<void>((resolve) => (settle = resolve));
        try {
          batch = batchOf(this.#state, changes);
          await this.#writer.write(batch);
        } catch (error) {
          this.#fail(error, target);
          return;
        } finally {
          if (structural) {
            this.#structural = null;
            settle();
          }
        }
        this.batches += 1;
        this.#saving = null;
        // a reset's old rows and a removed account's rows are deleted behind it, a batch at a time
        if (batch.everything || batch.resetAccounts.length > 0 || batch.removedAccounts.length > 0)
          void this.#purge();
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
      this.#saving = null;
      if (this.#waiters.length > 0 && this.#written < this.#marked) this.#schedule();
    }
  }

  /**
   * A batch failed: its changes, and every one made since, exist only in memory. They are never saved
   * later (a request answered 503 must not take effect behind its caller's back); the state goes back
   * to what the store holds instead.
   */
  #fail(error: unknown, batchTarget: number): void {
    this.#failed = true;
    // only a request whose changes were in the batch being committed can have been kept
    const cutOff = error instanceof CommitUnknownError;
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const { target, waiter } of waiting)
      waiter.reject(changesNotStored(cutOff && target <= batchTarget ? "unknown" : "no"));
    this.#onError(error);
    if ("reload" in this.#afterFailure) this.#reload(this.#afterFailure.reload);
    else this.#afterFailure.giveUp(error);
  }

  /** Reads the committed state back into the engine, trying again (paused) until it works or the store closes. */
  #reload(load: () => Promise<Saved | null>): void {
    if (this.#reloading !== null || this.#stopped) return;
    this.#reloading = (async () => {
      for (let attempt = 0; !this.#stopped; attempt++) {
        // a save that fails again right after a reload waits before the next one
        if (attempt > 0 || Date.now() - this.#lastReload < RELOAD_PAUSE_MS) await pause(RELOAD_PAUSE_MS);
        if (this.#stopped) return;
        try {
          const saved = await load();
          if (saved === null) throw new Error("the store holds no saved state to go back to");
          const state = this.#state;
          if (this.#stopped || state === null) return;
          // the changes the store does not hold go with the state that held them
          this.#tracker.take();
          this.#written = this.#marked;
          this.#failed = false;
          this.reloads += 1;
          this.#lastReload = Date.now();
          restore(state, saved);
          this.#loader?.restarted();
          return;
        } catch (error) {
          this.#onError(error);
        }
      }
    })().finally(() => {
      this.#reloading = null;
    });
  }
}

/** Puts a store's saved state into an engine: whole, or the sandbox and default account alone. */
function restore(state: MockState, saved: Saved): void {
  if ("accounts" in saved) restoreState(state, saved);
  else restoreStart(state, saved);
}

/** Resolves after `ms`, without holding the process open. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
