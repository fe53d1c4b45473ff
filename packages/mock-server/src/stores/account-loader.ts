// Accounts load on use (docs/decisions/shared-sandbox-accounts-load-on-use.md): a process holding a durable store
// reads the sandbox and its default account at start, and every other account only when a request
// names it or its work falls due. Idle accounts leave memory again once more records than the cache
// holds are loaded, so start-up time and memory follow use, not history. The store stays whole: an
// account out of memory is read back, records, deliveries and schedule, exactly as a restart would.

import { isStorableText } from "@paykit/contract";
import type { Account } from "../domain/accounts.js";
import { nextDueOf } from "../domain/next-due.js";
import type { AccountNeeds } from "../domain/persistence.js";
import { adoptSavedAccount, adoptSavedRecords } from "../domain/restore.js";
import type { SavedAccountRecords } from "../domain/saved.js";
import { unrefTimer } from "../domain/scheduler.js";
import type { MockState } from "../domain/state.js";
import { RecordReads } from "./record-reads.js";
import type { AccountKey, RecordNames, SavedRecords } from "./sql/state-store.js";

/** Accounts a durable store's process read in on use, and took out of memory again. */
export interface AccountLoads {
  loads: number;
  unloads: number;
  /**
   * Shared sandbox: copies another process wrote since they were read, brought up to date in place
   * from the rows it wrote. Zero otherwise.
   */
  caughtUp: number;
  /**
   * Shared sandbox: copies another process wrote since they were read, read again whole instead (a
   * record they held was written again, a reset, changes of their own not saved yet). Zero otherwise.
   */
  readAgain: number;
}

/** Where accounts are read from: the SQL store. */
export interface AccountSource {
  loadAccounts(
    ids: readonly string[],
    options?: { records?: boolean | "active" },
  ): Promise<SavedAccountRecords[]>;
  loadRecords(accountId: string, names: RecordNames): Promise<SavedRecords>;
  accountIdsBy(kind: AccountKey | "all", values?: readonly string[]): Promise<string[]>;
  dueAccounts(sandboxNowMs: number, limit: number): Promise<string[]>;
}

/** Options of an {@link AccountLoader}. */
export interface AccountLoaderOptions {
  /**
   * Records (payins, payouts and webhook deliveries) idle accounts may hold in memory together; past
   * it the least recently used idle accounts leave memory. An account in use is held whole.
   * @default 100000
   */
  cacheRecords?: number;
  /** How often the store is asked for accounts whose work fell due, in ms. @default 1000 */
  dueIntervalMs?: number;
  /**
   * Reads every account whole, never its active records alone (a retention limit, `maxRecords`,
   * counts an account's records in memory). @default false
   */
  alwaysWhole?: boolean;
  /**
   * How accounts whose work fell due are read in (a shared store reads them under their lock, as a
   * request would). @default read as a request's accounts are
   */
  loadDue?: (ids: readonly string[]) => Promise<void>;
}

/** How much of an account a read brings in: every record, the active ones, or none. */
type ReadMode = "whole" | "active" | "bare";

/** The default of {@link AccountLoaderOptions.cacheRecords}. */
export const DEFAULT_CACHE_RECORDS = 100_000;
const DUE_BATCH = 100;
/** Accounts read per query (ids go in one array parameter). */
const READ_BATCH = 500;
/** An account whose work falls due this soon stays in memory: reading it back for it would be waste. */
const DUE_SOON_MS = 10_000;

/** Reads accounts into a state on use and takes idle ones out (see the file's comment). */
export class AccountLoader {
  readonly #state: MockState;
  readonly #source: AccountSource;
  /** Named records asked in one turn, read together (a group's requests ask together). */
  readonly #recordReads: RecordReads;
  readonly #cacheRecords: number;
  readonly #dueIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  /** Whether the store holds every change of an account (none waits for a save, none is being saved). */
  readonly #holdsAll: (accountId: string) => boolean;
  /** Loads under way, by account id. */
  readonly #loading = new Map<string, Promise<void>>();
  /** Requests using each account now. */
  readonly #pins = new Map<string, number>();
  /** Loaded accounts, least recently used first (a Map keeps insertion order). */
  readonly #used = new Map<string, true>();
  /**
   * Accounts read in without their records, for the one request that needs no more (a reset): every
   * other request for one waits until that one is done; the account then leaves memory unless the
   * request replaced it (a reset account has no records, so it is whole).
   */
  readonly #bare = new Map<string, { account: Account; done: Promise<void>; finish: () => void }>();
  /**
   * Accounts in memory with their active records alone (and the ones requests named since): a request
   * that reads every record (a list) reads the rest first. An account not here is whole.
   */
  readonly #active = new Set<string>();
  /** Reads of the rest of an active account under way, by account id. */
  readonly #completing = new Map<string, Promise<void>>();
  readonly #alwaysWhole: boolean;
  readonly #loadDue: ((ids: readonly string[]) => Promise<void>) | null;
  /** Accounts removed by this process: a load under way for one is dropped, never adopted. */
  readonly #gone = new Set<string>();
  #evictTimer: ReturnType<typeof setTimeout> | undefined;
  #dueTimer: ReturnType<typeof setTimeout> | undefined;
  #polling = false;
  #stopped = false;
  /** Accounts read in, and taken out, so far (for the bench and the tests). */
  loads = 0;
  unloads = 0;

  constructor(
    state: MockState,
    source: AccountSource,
    onError: (error: unknown) => void,
    holdsAll: (accountId: string) => boolean,
    options: AccountLoaderOptions = {},
  ) {
    this.#state = state;
    this.#source = source;
    this.#recordReads = new RecordReads((id, names) => source.loadRecords(id, names));
    this.#onError = onError;
    this.#holdsAll = holdsAll;
    this.#cacheRecords = options.cacheRecords ?? DEFAULT_CACHE_RECORDS;
    this.#dueIntervalMs = options.dueIntervalMs ?? 1_000;
    this.#alwaysWhole = options.alwaysWhole ?? false;
    this.#loadDue = options.loadDue ?? null;
  }

  /** Starts asking the store for accounts whose work fell due. */
  start(): void {
    this.#scheduleDue(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#evictTimer);
    clearTimeout(this.#dueTimer);
  }

  /**
   * The state was read back from the store (at start, or after a failed save): nothing this loader
   * knew still holds. The default account was read with its active records (unless every account is
   * read whole): a list reads the rest.
   */
  restarted(): void {
    this.#used.clear();
    this.#active.clear();
    const id = this.#state.defaultAccount.id;
    this.#used.set(id, true);
    if (!this.#alwaysWhole) this.#active.add(id);
  }

  /**
   * Accounts taken out of memory by the store itself (a shared store's copy that another process's
   * write made stale): forgotten here too.
   */
  forget(accountIds: Iterable<string>): void {
    for (const id of accountIds) {
      this.#used.delete(id);
      this.#active.delete(id);
    }
  }

  /** Whether an account is in memory without its records, for the one request that reads it so. */
  isBare(accountId: string): boolean {
    return this.#bare.has(accountId);
  }

  /** The ids of the accounts a request names (see {@link prepare}), without reading any in. */
  resolveIds(needs: AccountNeeds): Promise<string[]> {
    return this.#resolve(needs);
  }

  /** An account was removed (retention): a load of it under way is dropped. */
  removed(accountId: string): void {
    this.#gone.add(accountId);
    this.#used.delete(accountId);
    this.#active.delete(accountId);
  }

  /** Reads in what a request needs and holds it in memory until the answer's release is called. */
  async prepare(needs: AccountNeeds): Promise<() => void> {
    // Every account named is held from here on: one read in while the request still waits for
    // another (or for its named records) must not leave memory before the request runs.
    const pinned = new Set<string>();
    const pin = (ids: Iterable<string>) => {
      for (const id of ids) {
        if (pinned.has(id)) continue;
        pinned.add(id);
        this.#pins.set(id, (this.#pins.get(id) ?? 0) + 1);
      }
    };
    let bare: string[] = [];
    const release = () => {
      for (const id of pinned) {
        const left = (this.#pins.get(id) ?? 1) - 1;
        if (left > 0) this.#pins.set(id, left);
        else this.#pins.delete(id);
      }
      for (const id of bare) this.#releaseBare(id);
      this.#evictSoon();
    };
    try {
      const named = await this.#resolve(needs);
      pin(named);
      const bareIds = needs.bareAll
        ? await this.#source.accountIdsBy("all")
        : (needs.bareAccountIds ?? []).filter(isStorableText);
      pin(bareIds);
      if (bareIds.length > 0) {
        const held = await this.#holdBare(bareIds);
        bare = held.bare;
        named.push(...held.whole);
      }
      // an account held bare serves this request as it is (its keys are there, for its own caller)
      const barely = new Set(bare);
      const ids = [...new Set(named)].filter((id) => !barely.has(id));
      const whole = needs.whole === true || this.#alwaysWhole;
      await this.#ensureLoaded(ids, whole ? "whole" : "active");
      if (!whole) await this.#ensureRecords(ids, needs);
    } catch (error) {
      release();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }

  /** The ids of the accounts a request names, from memory where it knows them, else from the store. */
  async #resolve(needs: AccountNeeds): Promise<string[]> {
    const state = this.#state;
    if (needs.all) return this.#source.accountIdsBy("all");
    // a name no store could hold (a lone surrogate, a NUL) names nothing: the route refuses it itself
    const ids = new Set<string>((needs.accountIds ?? []).filter(isStorableText));
    const ask: [AccountKey, string[]][] = [];
    const lookup = (
      kind: AccountKey,
      values: string[] | undefined,
      inMemory: (v: string) => string | null,
    ) => {
      const missing: string[] = [];
      for (const value of values ?? []) {
        const id = inMemory(value);
        if (id !== null) ids.add(id);
        else if (value !== "" && isStorableText(value)) missing.push(value);
      }
      if (missing.length > 0) ask.push([kind, missing]);
    };
    lookup("publicKey", needs.publicKeys, (k) => state.accountsByPublicKey.get(k)?.id ?? null);
    lookup("payin", needs.payinIds, (id) => state.payins.get(id)?.accountId ?? null);
    lookup("payout", needs.payoutIds, (id) => {
      for (const account of state.accounts.values()) if (account.payoutsById.has(id)) return account.id;
      return null;
    });
    lookup("delivery", needs.deliveryIds, (id) => state.outbox.accountOf(id));
    lookup(
      "threeDS",
      needs.threeDSTransactionIds,
      (tx) => state.payinsByThreeDSTransaction.get(tx)?.accountId ?? null,
    );
    for (const [kind, values] of ask)
      for (const id of await this.#source.accountIdsBy(kind, values)) ids.add(id);
    return [...ids];
  }

  /**
   * Makes sure accounts are in memory, whole or with their active records: read from the store (a
   * batch per query) unless they are; waits for one being read, or held bare by a reset, first; reads
   * the rest of an active one that must be whole. An id the store does not hold is left.
   */
  async #ensureLoaded(ids: readonly string[], mode: "whole" | "active"): Promise<void> {
    const state = this.#state;
    let left = ids;
    while (left.length > 0) {
      const { waits, loaded, missing } = this.#sort(left);
      for (const id of loaded) {
        this.#touch(id);
        if (mode === "whole" && this.#active.has(id)) waits.push(this.#complete(id));
      }
      const absent = new Set<string>();
      if (missing.length > 0)
        waits.push(
          this.#read(missing, mode).then((found) => {
            for (const id of missing) if (!found.has(id)) absent.add(id);
          }),
        );
      if (waits.length === 0) return;
      await Promise.all(waits);
      // again: a reset held bare may be done, a read dropped (the sandbox reset meanwhile) is made anew
      left = left.filter(
        (id) =>
          !absent.has(id) &&
          (!state.accounts.has(id) || this.#bare.has(id) || (mode === "whole" && this.#active.has(id))),
      );
    }
  }

  /** Reads the records of an active account that memory does not hold, once however many ask. */
  #complete(id: string): Promise<void> {
    let completing = this.#completing.get(id);
    if (completing === undefined) {
      const state = this.#state;
      const account = state.accounts.get(id);
      const generation = state.generation;
      completing = this.#source
        .loadAccounts([id], { records: true })
        .then(([saved]) => {
          // replaced meanwhile (a reset, a read back): what was read belongs to the account before
          if (saved === undefined || state.accounts.get(id) !== account || state.generation !== generation)
            return;
          adoptSavedRecords(state, account as Account, saved);
          this.#active.delete(id);
          this.#evictSoon();
        })
        .finally(() => this.#completing.delete(id));
      this.#completing.set(id, completing);
    }
    return completing;
  }

  /**
   * Reads the records a request names (by id, payout referenceId or 3DS transaction) into the active
   * accounts it uses, when memory does not hold them: a whole account holds every record already.
   */
  async #ensureRecords(ids: readonly string[], needs: AccountNeeds): Promise<void> {
    const state = this.#state;
    const wanted = (values: readonly string[] | undefined, held: (v: string) => boolean) =>
      (values ?? []).filter((v) => v !== "" && isStorableText(v) && !held(v));
    const names: RecordNames = {
      payinIds: wanted(needs.payinIds, (id) => state.payins.get(id) !== undefined),
      threeDSTransactionIds: wanted(needs.threeDSTransactionIds, (tx) =>
        state.payinsByThreeDSTransaction.has(tx),
      ),
      deliveryIds: wanted(needs.deliveryIds, (id) => state.outbox.accountOf(id) !== null),
    };
    for (const id of ids) {
      if (!this.#active.has(id)) continue;
      const account = state.accounts.get(id);
      if (account === undefined) continue;
      const mine: RecordNames = {
        ...names,
        payoutIds: wanted(needs.payoutIds, (p) => account.payoutsById.has(p)),
        payoutReferenceIds: wanted(needs.payoutReferenceIds, (r) => account.payoutsByReference.has(r)),
      };
      if (Object.values(mine).every((v) => v === undefined || v.length === 0)) continue;
      const generation = state.generation;
      const saved = await this.#recordReads.read(id, mine);
      if (state.accounts.get(id) !== account || state.generation !== generation) continue;
      adoptSavedRecords(state, account, saved);
    }
  }

  /** Sorts accounts: those to wait for (being read, or held bare by a reset), in memory, and missing. */
  #sort(ids: readonly string[]): { waits: Promise<unknown>[]; loaded: string[]; missing: string[] } {
    const waits: Promise<unknown>[] = [];
    const loaded: string[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const held = this.#bare.get(id)?.done ?? this.#loading.get(id);
      if (held !== undefined) waits.push(held);
      else if (this.#state.accounts.has(id)) loaded.push(id);
      else missing.push(id);
    }
    return { waits, loaded, missing };
  }

  /**
   * Reads accounts without their records for one request (a reset, the account list), unless they are
   * in memory whole already: those are answered as `whole`, the request uses them as they are.
   */
  async #holdBare(ids: readonly string[]): Promise<{ bare: string[]; whole: string[] }> {
    const bare: string[] = [];
    const whole: string[] = [];
    let left = ids;
    while (left.length > 0) {
      const { waits, loaded, missing } = this.#sort(left);
      whole.push(...loaded);
      const done = new Set<string>();
      if (missing.length > 0)
        waits.push(
          this.#read(missing, "bare").then((found) => {
            for (const id of missing) done.add(id);
            for (const id of found) bare.push(id);
          }),
        );
      if (waits.length === 0) break;
      await Promise.all(waits);
      left = left.filter((id) => !done.has(id) && !whole.includes(id));
    }
    return { bare, whole };
  }

  /**
   * Reads accounts from the store, whole or bare, a batch per query, and adopts each unless the read
   * went stale meanwhile (the sandbox reset or read back, the account removed, read by another
   * request). Answers the ids adopted.
   */
  #read(ids: readonly string[], mode: ReadMode): Promise<Set<string>> {
    const state = this.#state;
    const generation = state.generation;
    const adopted = new Set<string>();
    const reading = (async () => {
      for (let i = 0; i < ids.length; i += READ_BATCH) {
        const records = mode === "whole" ? true : mode === "active" ? "active" : false;
        const saved = await this.#source.loadAccounts(ids.slice(i, i + READ_BATCH), { records });
        for (const one of saved) {
          const id = one.account.id;
          if (state.generation !== generation || this.#gone.has(id) || state.closed) continue;
          if (state.accounts.has(id) || this.#bare.has(id)) continue;
          const account = adoptSavedAccount(state, one);
          this.loads += 1;
          adopted.add(id);
          if (mode === "active") this.#active.add(id);
          if (mode !== "bare") this.#touch(id);
          else {
            let finish = () => {};
            const done = new Promise<void>((resolve) => (finish = resolve));
            this.#bare.set(id, { account, done, finish });
          }
        }
      }
      if (mode !== "bare") this.#evictSoon();
      return adopted;
    })();
    const settled = reading.then(
      () => {},
      () => {},
    );
    for (const id of ids) this.#loading.set(id, settled);
    return reading.finally(() => {
      for (const id of ids) if (this.#loading.get(id) === settled) this.#loading.delete(id);
    });
  }

  #releaseBare(id: string): void {
    const held = this.#bare.get(id);
    if (held === undefined) return;
    this.#bare.delete(id);
    const state = this.#state;
    // replaced (a reset): the new account is whole; otherwise its records were never read in
    if (state.accounts.get(id) === held.account) this.unloads += state.unloadAccounts([id]).length;
    else if (state.accounts.has(id)) {
      // a reset account has no records: it is whole
      this.#active.delete(id);
      this.#touch(id);
    }
    held.finish();
  }

  /** Marks an account as just used (the end of the least-recently-used order). */
  #touch(id: string): void {
    this.#used.delete(id);
    this.#used.set(id, true);
  }

  #evictSoon(): void {
    if (this.#evictTimer !== undefined || this.#stopped) return;
    this.#evictTimer = setTimeout(() => {
      this.#evictTimer = undefined;
      this.evict();
    }, 250);
    unrefTimer(this.#evictTimer);
  }

  /**
   * Takes the least recently used idle accounts out of memory while the loaded ones hold more than
   * the cache's records. Idle: no request uses it, the store holds all its changes, no delivery of it
   * is on its way, no listener is attached, and no work of it falls due within ten seconds. Answers
   * how many left.
   */
  evict(): number {
    const state = this.#state;
    if (this.#stopped) return 0;
    let held = 0;
    const sizes = new Map<string, number>();
    for (const id of this.#used.keys()) {
      const account = state.accounts.get(id);
      if (account === undefined) {
        this.#used.delete(id);
        continue;
      }
      const size = account.payins.length + account.payouts.length + state.outbox.countOf(id);
      sizes.set(id, size);
      held += size;
    }
    if (held <= this.#cacheRecords) return 0;
    const out: string[] = [];
    const now = state.clock.now();
    let waiting = false;
    for (const [id, size] of sizes) {
      if (held <= this.#cacheRecords) break;
      if (!this.#idle(id, now)) {
        // in use, or its changes not saved yet: soon idle (an account due later waits for that)
        waiting ||= id !== state.defaultAccount.id && !this.#dueSoon(id, now);
        continue;
      }
      out.push(id);
      held -= size;
    }
    // still over the cache with accounts about to be idle: look again shortly, not at the next request
    if (held > this.#cacheRecords && waiting) this.#evictSoon();
    const unloaded = state.unloadAccounts(out);
    for (const id of unloaded) {
      this.#used.delete(id);
      this.#active.delete(id);
    }
    this.unloads += unloaded.length;
    return unloaded.length;
  }

  /** Whether an account's work falls due within ten seconds (it then stays in memory for it). */
  #dueSoon(id: string, now: number): boolean {
    const due = nextDueOf(this.#state, id);
    return due !== null && due <= now + DUE_SOON_MS;
  }

  #idle(id: string, now: number): boolean {
    const state = this.#state;
    if (id === state.defaultAccount.id || this.#pins.has(id) || !this.#holdsAll(id)) return false;
    if (state.outbox.busy(id) || state.listeners.holds(id)) return false;
    return !this.#dueSoon(id, now);
  }

  #scheduleDue(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#dueTimer);
    this.#dueTimer = setTimeout(() => void this.#pollDue(), ms);
    unrefTimer(this.#dueTimer);
  }

  /**
   * Reads in the accounts whose work fell due while nobody held them: their schedule then runs it as
   * it would have (expiries, retries under the same webhook-id, payout steps). Each is marked changed,
   * so its next due time is saved again even when nothing was due after all.
   */
  async #pollDue(): Promise<void> {
    if (this.#polling || this.#stopped) return;
    this.#polling = true;
    try {
      const state = this.#state;
      const due = await this.#source.dueAccounts(state.clock.now(), DUE_BATCH);
      const fresh = due.filter((id) => !state.accounts.has(id) && !this.#gone.has(id));
      if (this.#loadDue !== null) await this.#loadDue(fresh);
      else await this.#ensureLoaded(fresh, this.#alwaysWhole ? "whole" : "active");
      // loaded ones too: a due time that passed with nothing to do is saved anew, so it is not asked again
      for (const id of due) if (state.accounts.has(id)) state.changes?.account(id);
    } catch (error) {
      if (!this.#stopped) this.#onError(error);
    } finally {
      this.#polling = false;
      // also the pass that takes accounts out once their deliveries are done
      this.evict();
      this.#scheduleDue(this.#dueIntervalMs);
    }
  }
}
