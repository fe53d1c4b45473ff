// A sandbox that many mock processes serve at once, with PostgreSQL as its source of truth
// (`--store postgres://…`; docs/decisions/shared-sandbox-every-process-serves.md).
// There is no leader and no relay: each request is one transaction. It locks the rows of the accounts
// it names (SELECT … FOR UPDATE, in id order), reads again any account whose version moved since this
// process last read or wrote it, runs on the engine, writes its changes, bumps the versions of the
// accounts it wrote and commits before it is answered. Memory is a cache of accounts keyed by version;
// the database decides.
//
// Changes made outside a request (an expiry, a payout step, a webhook attempt's result) are saved on
// their own, optimistically: under the account's lock, and only when this process's copy is still
// at the version the store holds. Otherwise they are dropped with the copy: the work is derived from
// the records, and runs again from the account as read back.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { isStorableText } from "@paykit/contract";
import type { Account } from "../domain/accounts.js";
import { ChangeSet, ChangeTracker } from "../domain/changes.js";
import { ApiError } from "../domain/errors.js";
import { LISTENER_LEASE_MS } from "../domain/listeners.js";
import { expireOnClock } from "../domain/payins.js";
import {
  type AccountNeeds,
  changesNotStored,
  type RequestHold,
  RunAgainError,
  type StatePersistence,
} from "../domain/persistence.js";
import { adoptAccountChanges, adoptSavedSandbox, restoreStart } from "../domain/restore.js";
import type { SavedStart } from "../domain/saved.js";
import { type EngineOptions, MockState } from "../domain/state.js";
import { AccountLoader, type AccountLoads } from "./account-loader.js";
import { batchOf } from "./save-batch.js";
import {
  assertSchemaKnown,
  knownVersion,
  MIGRATIONS,
  type Migration,
  migrate,
  SchemaTooNewError,
} from "./sql/migrations.js";
import {
  accountVersions,
  CLAIM_MARGIN_MS,
  claimAttempt,
  dropListener,
  holdListener,
  isSandboxMoved,
  isSchemaMoved,
  lockAccounts,
  readSandbox,
  removeUnused,
  runEach,
  schemaGuard,
  sharedWrite,
  type Versions,
  writeAttempt,
} from "./sql/shared-sql.js";
import {
  CommitUnknownError,
  type OpenTransaction,
  openPostgres,
  type SqlDatabase,
  shownUrl,
  TransactionEndedError,
} from "./sql/sql-client.js";
import { readChanges, SqlStateStore } from "./sql/state-store.js";
import { StoreHealth } from "./store-health.js";

/** Options of {@link openSharedStore}. */
export interface SharedStoreOptions {
  /** Records idle accounts may hold in memory together (`--cache-records`). @default 100000 */
  cacheRecords?: number;
  /** The default account's fixed public key (`--default-keys`): that account is read at start. */
  defaultPublicKey?: string;
  /** Called with every error of a change saved outside a request. */
  onError?: (error: unknown) => void;
  /** Transactions this process holds open at once (one per request in flight). @default 16 */
  connections?: number;
  /** Where the two lines of an outage, and a refusal, go. @default stderr, as `paykit-mock: …` */
  log?: (line: string) => void;
  /** The migrations this process knows (tests play a newer mock with one more). @default MIGRATIONS */
  migrations?: readonly Migration[];
  /**
   * How long the server lets a transaction of this process sit idle before it ends the session (a
   * process stopped mid-request holds its accounts no longer). @default 2000
   */
  idleInTransactionMs?: number;
}

/**
 * Requests of one process that share one transaction: the first locks the accounts, the requests that
 * come for the same accounts while it runs join it, and the group commits once every member has done
 * its work (see prepare). A busy account then costs two round trips per group, not per request.
 */
interface Group {
  /** The accounts the transaction locks (the first member's). */
  readonly ids: ReadonlySet<string>;
  /** Those of them the store holds (filled once the locks are taken). */
  readonly locked: Set<string>;
  readonly members: Set<Hold>;
  /**
   * A group of one request that reads accounts bare (a reset, the account list): nobody joins it, and
   * it joins nobody. A request that needs such an account whole waits for the bare hold's release,
   * which comes after the commit, and the commit waits for every member: in one group, they would
   * wait for each other for ever.
   */
  readonly solo: boolean;
  /** Members that finished their work (asked for their commit, or ended). */
  readonly ready: Set<Hold>;
  phase: "opening" | "open" | "committing";
  /** Resolves once the locks are taken (rejects when they could not be). */
  opened: Promise<{ tx: OpenTransaction; versions: Versions }>;
  /** Settles once the group committed (or failed to), and is gone. */
  committed: Promise<void>;
  /** The commit's outcome, for its members. */
  outcome: Promise<void>;
  commit(): void;
}

/** A request's hold: its group's transaction, the accounts it locked, and the changes it made. */
interface Hold extends RequestHold {
  readonly changes: ChangeTracker;
  readonly locked: ReadonlySet<string>;
  /** Takes the loader's release function of the accounts the request read in. */
  loaded(release: () => void): void;
  /**
   * Set once the request commits: a change made after (by a timer or a webhook attempt it started,
   * which run in its async context) is a background change.
   */
  closed: boolean;
}

/**
 * How long the database lets a transaction of this process sit between two statements before it ends
 * the session: a process stopped mid-request (SIGSTOP) holds the other processes up for no longer.
 * A request's own waits are short (a read of an account; latency faults wait after the commit).
 */
const IDLE_IN_TRANSACTION_MS = 2_000;
/** How often the accounts whose listener polls this process are checked for another process's writes. */
const WATCH_LISTENED_MS = 250;
/** How long changes made outside a request wait for an account a request of this process holds. */
const BUSY_RETRY_MS = 20;
/**
 * The most requests one transaction takes. Its session idles between the lock and the commit while
 * its members run, one after the other: a thousand requests at once in one group kept it idle past
 * the server's limit on a starved CI machine, and every one of them failed. 64 (their record reads
 * made together, record-reads.ts) keeps that to 10-20 ms here, and still shares a commit among as
 * many requests as a busy client sends at once.
 */
const MAX_GROUP_MEMBERS = 64;
/** Advisory lock key under which the first process creates a new sandbox. */
const FIRST_START_LOCK = 0x7061796b; // "payk"

/** A {@link StatePersistence} for a PostgreSQL sandbox every process serves (see the file's comment). */
export class SharedStore implements StatePersistence {
  readonly locksAccounts = true;
  readonly #db: SqlDatabase;
  readonly #readDb: SqlDatabase;
  readonly #reads: SqlStateStore;
  readonly #start: { saved: SavedStart; versions: Versions };
  readonly #options: SharedStoreOptions;
  readonly #context = new AsyncLocalStorage<Hold>();
  /** Changes made outside any request, saved on their own (see the file's comment). */
  readonly #background = new ChangeTracker(() => this.#saveBackgroundSoon(0));
  /** The version the store held of each account when this process read or wrote the copy named. */
  readonly #versions = new Map<string, { account: Account; version: number }>();
  #sandboxVersion = 0;
  /** Accounts a request of this process holds the lock of, and those requests. */
  readonly #holding = new Map<string, Set<Hold>>();
  /** Accounts whose changes are being written. */
  readonly #writing = new Set<string>();
  /** Deliveries waiting to be committed before they are sent. */
  readonly #deliveryWaits = new Map<string, { resolve(): void; reject(error: unknown): void }[]>();
  /** Who this process is, in the claims it takes on delivery attempts. */
  readonly #owner = `mock-${process.pid}-${randomUUID()}`;
  /** Deliveries whose attempt this process claimed and has not written yet. */
  readonly #claimed = new Set<string>();
  /** Attempt outcomes being written, by delivery: the next claim of the delivery waits for it. */
  readonly #attemptWrites = new Map<string, Promise<void>>();
  #state: MockState | null = null;
  #loader: AccountLoader | null = null;
  #backgroundTimer: ReturnType<typeof setTimeout> | undefined;
  #backgroundRunning = false;
  #backgroundAgain = false;
  #stopped = false;
  /** The newest schema this process knows. */
  readonly #known: number;
  readonly #health: StoreHealth;
  readonly #log: (line: string) => void;
  /** Set once a newer mock migrated the store: every request is refused from then on. */
  #refusal: SchemaTooNewError | null = null;
  /** Transactions committed, and copies read again because another process wrote the account. */
  commits = 0;
  refreshes = 0;
  /** Copies brought up to date in place from the rows another process wrote (see `#catchUp`). */
  caughtUp = 0;
  /** Request transactions the server ended before their commit (run again by the engine). */
  ended = 0;

  constructor(
    db: SqlDatabase,
    readDb: SqlDatabase,
    start: { saved: SavedStart; versions: Versions },
    options: SharedStoreOptions & { where: string },
  ) {
    this.#db = db;
    this.#readDb = readDb;
    this.#known = knownVersion(options.migrations ?? MIGRATIONS);
    // its purge deletes rows: behind the schema guard too
    this.#reads = new SqlStateStore(readDb, { knownSchema: this.#known });
    this.#start = start;
    this.#options = options;
    const log = options.log ?? ((line: string) => void process.stderr.write(`paykit-mock: ${line}\n`));
    this.#log = log;
    // back once the database answers and its schema is still one this process knows
    this.#health = new StoreHealth(
      async () => {
        try {
          await assertSchemaKnown(readDb, this.#known);
        } catch (error) {
          if (error instanceof SchemaTooNewError) this.#refuseWith(error);
          throw error;
        }
      },
      log,
      options.where,
    );
  }

  /** Whether a newer mock migrated the store, so this process serves nothing more. */
  get refused(): boolean {
    return this.#refusal !== null;
  }

  attach(state: MockState): void {
    if (this.#state !== null) throw new Error("a store serves one engine");
    this.#state = state;
    const background = this.#background;
    const context = this.#context;
    // The domain marks its changes on `state.changes`: a request's go to its own hold, the others to
    // the background set.
    state.changes = new Proxy(background, {
      get(target, property) {
        const hold = context.getStore();
        const current = hold !== undefined && !hold.closed ? hold.changes : target;
        const value = Reflect.get(current, property, current);
        return typeof value === "function" ? value.bind(current) : value;
      },
    });
    state.outbox.hooks = {
      // a claimed attempt's outcome is written at once, under its account's lock, whatever version this
      // copy is at; any other change (another copy of it waiting for its retry, say) is saved as usual
      changed: (id, claimedAttempt) =>
        claimedAttempt === true && this.#claimed.has(id)
          ? this.#saveAttemptSoon(id)
          : state.changes?.delivery(id),
      saved: (id) => this.#deliverySaved(id),
      claim: (id, cycleAttempts) => this.#claim(id, cycleAttempts),
    };
    state.listeners.observer = {
      polled: (accountId) => this.#listenerPolled(accountId),
      left: (accountId) => this.#listenerLeft(accountId),
    };
    // The default account comes with its settings alone, so that a start reads no records however
    // many it has: with no version known, its copy is read again whole, records and work, by the first
    // request that locks it (or the due pass, when its work falls due first).
    restoreStart(state, this.#start.saved);
    this.#sandboxVersion = this.#start.versions.sandbox;
    this.#loader = new AccountLoader(
      state,
      this.#reads,
      (error) => this.#report(error),
      (accountId) => this.#holdsAll(accountId),
      {
        ...(this.#options.cacheRecords === undefined ? {} : { cacheRecords: this.#options.cacheRecords }),
        alwaysWhole: Number.isFinite(state.maxRecords),
        loadDue: (ids) => this.#loadDue(ids),
      },
    );
    this.#loader.restarted();
    this.#loader.start();
  }

  /** Accounts read in on use, and taken out again. */
  get accountLoads(): AccountLoads {
    return {
      loads: this.#loader?.loads ?? 0,
      unloads: this.#loader?.unloads ?? 0,
      caughtUp: this.caughtUp,
      readAgain: this.refreshes,
    };
  }

  /** Resolves once every change made outside a request so far is saved (or dropped as stale). */
  async saved(): Promise<void> {
    for (let i = 0; i < 1_000 && !this.#stopped; i++) {
      if (this.#background.hasChanges() || this.#backgroundRunning) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      return;
    }
  }

  async prepare(needs: AccountNeeds): Promise<RequestHold> {
    const state = this.#state;
    const loader = this.#loader;
    if (state === null || loader === null || this.#stopped || this.#db.begin === undefined)
      throw unavailable("the mock is stopping");
    try {
      return await this.#prepare(state, loader, needs);
    } catch (error) {
      throw await this.#failure(error);
    }
  }

  async #prepare(state: MockState, loader: AccountLoader, needs: AccountNeeds): Promise<RequestHold> {
    for (let attempt = 0; ; attempt++) {
      if (this.#refusal !== null) throw this.#refusalError();
      const ids = await this.#lockIds(loader, needs);
      if (this.#stopped) throw unavailable("the mock is stopping");
      // An account a group of this process holds: join it when it locks all of these and still takes
      // members; otherwise wait here for its end (rather than in the database's lock queue).
      let group: Group | undefined;
      const busy = new Set<Group>();
      for (const id of ids) {
        const held = this.#groups.get(id);
        if (held !== undefined) busy.add(held);
      }
      const [only] = busy;
      // a group takes members until its first member is done: its commit never waits for late comers
      const solo = needs.bareAll === true || (needs.bareAccountIds?.length ?? 0) > 0;
      const joinable =
        only !== undefined &&
        !solo &&
        !only.solo &&
        only.phase !== "committing" &&
        only.ready.size === 0 &&
        only.members.size < MAX_GROUP_MEMBERS;
      if (busy.size === 1 && joinable && ids.every((id) => only.ids.has(id))) group = only;
      else if (busy.size > 0) {
        await Promise.allSettled([...busy].map((g) => g.committed));
        continue;
      } else group = this.#openGroup(ids, needs.bareAll === true || needs.all === true, solo);
      const hold = this.#member(group);
      let release = () => {};
      try {
        const { versions } = await group.opened;
        release = await loader.prepare(needs);
        // a name that moved to an account this transaction did not lock (a key reused after a reset)
        const now = await this.#lockIds(loader, needs);
        const unlocked = (id: string) =>
          !versions.accounts.has(id) && state.accounts.has(id) && this.#versions.has(id);
        if (now.some(unlocked)) {
          release();
          hold.release();
          if (attempt < 3) continue;
          throw unavailable("the accounts this request names kept changing");
        }
        this.#adopt(versions);
        hold.loaded(release);
        return hold;
      } catch (error) {
        release();
        hold.release();
        throw error;
      }
    }
  }

  /** Groups of this process by the accounts they lock. */
  readonly #groups = new Map<string, Group>();

  /** Opens a group's transaction on `ids`: locks them and brings this process's copies up to date. */
  #openGroup(ids: readonly string[], everyAccount: boolean, solo: boolean): Group {
    const begin = (this.#db.begin as NonNullable<SqlDatabase["begin"]>).bind(this.#db);
    let settle = () => {};
    let decide: { resolve(): void; reject(error: unknown): void } = { resolve() {}, reject() {} };
    const group: Group = {
      ids: new Set(ids),
      locked: new Set(),
      members: new Set(),
      solo,
      ready: new Set(),
      phase: "opening",
      // set below (it names the group)
      opened: undefined as unknown as Group["opened"],
      committed: new Promise<void>((resolve) => {
        settle = resolve;
      }),
      outcome: new Promise<void>((resolve, reject) => {
        decide = { resolve, reject };
      }),
      commit: () => {},
    };
    group.opened = (async () => {
      const tx = await begin();
      try {
        const versions = await lockAccounts(tx, ids, this.#known);
        for (const id of versions.accounts.keys()) group.locked.add(id);
        await this.#refresh(tx, ids, versions, everyAccount);
        if (group.phase === "opening") group.phase = "open";
        return { tx, versions };
      } catch (error) {
        await tx.rollback();
        throw error;
      }
    })();
    // nobody may wait for the outcome (every member gone): its failure is reported by the members
    group.outcome.catch(() => {});
    for (const id of ids) this.#groups.set(id, group);
    const end = () => {
      for (const id of ids) if (this.#groups.get(id) === group) this.#groups.delete(id);
      settle();
    };
    let committing = false;
    group.commit = () => {
      if (committing) return;
      committing = true;
      group.phase = "committing";
      group.opened
        .then(({ tx, versions }) => this.#commit(group, tx, versions))
        .then(decide.resolve, decide.reject)
        .finally(end);
    };
    // a group whose locks could not be taken ends at once: its members fail, the next request opens another
    group.opened.catch(() => group.commit());
    return group;
  }

  /** A request's place in a group; the group commits once every member is done. */
  #member(group: Group): Hold {
    let released = false;
    let unload = () => {};
    const hold: Hold = {
      changes: new ChangeTracker(() => {}),
      locked: group.locked,
      closed: false,
      loaded: (release) => {
        unload = release;
      },
      run: (work) => this.#context.run(hold, work),
      // A request that waits for its own webhooks (awaitWebhooks, a redelivery) asks at its first
      // wait: what it changes after is saved on its own.
      saved: () => {
        this.#done(group, hold);
        return group.outcome;
      },
      release: () => {
        if (released) return;
        released = true;
        for (const id of group.ids) {
          const holds = this.#holding.get(id);
          holds?.delete(hold);
          if (holds?.size === 0) this.#holding.delete(id);
        }
        // A request that ends without asking for its commit (a control call that failed) leaves its
        // changes in memory, as the memory store does: they go with the group's commit.
        this.#done(group, hold);
        hold.closed = true;
        unload();
        if (this.#background.hasChanges()) this.#saveBackgroundSoon(0);
      },
    };
    group.members.add(hold);
    for (const id of group.ids) {
      const holds = this.#holding.get(id) ?? new Set<Hold>();
      holds.add(hold);
      this.#holding.set(id, holds);
    }
    return hold;
  }

  /** A member is done: once all are, the group commits. */
  #done(group: Group, hold: Hold): void {
    group.ready.add(hold);
    if (group.ready.size === group.members.size) group.commit();
  }

  /** The copies this request read in are at the versions its group's lock found. */
  #adopt(versions: Versions): void {
    const state = this.#state as MockState;
    const loader = this.#loader as AccountLoader;
    if (this.#defaultBack) {
      const copy = state.accounts.get(state.defaultAccount.id);
      // a copy without its records (the account list's) is not the default one: it leaves after
      if (copy !== undefined && !loader.isBare(copy.id)) {
        state.useDefaultAccount(copy);
        this.#defaultBack = false;
      }
    }
    for (const [id, version] of versions.accounts) {
      const copy = state.accounts.get(id);
      // a copy read without records serves this request alone: it is never taken for the account
      if (copy === undefined || loader.isBare(id)) continue;
      const known = this.#versions.get(id);
      if (known === undefined || known.account !== copy) this.#versions.set(id, { account: copy, version });
    }
  }

  /**
   * The retention sweep (every process runs it; the database's clock and the row locks make them
   * agree): removes the accounts unused for `retentionMs`, then deletes their rows in batches.
   */
  async sweep(retentionMs: number): Promise<string[]> {
    try {
      return await this.#sweep(retentionMs);
    } catch (error) {
      this.#report(error);
      return [];
    }
  }

  async #sweep(retentionMs: number): Promise<string[]> {
    const state = this.#state;
    if (state === null || this.#stopped || this.#refusal !== null || this.#db.begin === undefined) return [];
    const candidates = await this.#reads.unusedAccounts(retentionMs, state.defaultAccount.id);
    // a use this process saw and has not stamped yet (stamps are written at most once a minute)
    const ids = candidates.filter((id) => !state.accounts.has(id) || !state.usedWithin(id, retentionMs));
    let removed: string[] = [];
    if (ids.length > 0) {
      const tx = await this.#db.begin();
      try {
        await tx.batch(schemaGuard(this.#known));
        removed = await removeUnused(tx, ids, retentionMs);
        await tx.commit();
      } catch (error) {
        await tx.rollback();
        throw error;
      }
      for (const id of removed) this.#loader?.removed(id);
      this.#drop(removed.filter((id) => state.accounts.has(id)));
    }
    await this.#reads.purge(() => this.#stopped);
    return removed;
  }

  /**
   * An account's `paykit-mock listen` polls this process: its row says so (renewed well within the
   * lease), so that only this process sends the account's attempts and hands them to the listener.
   */
  #listenerPolled(accountId: string): void {
    // the poll waits (up to 25 s) for attempts: its request commits first, so that it holds no lock
    const hold = this.#context.getStore();
    if (hold !== undefined && !hold.closed) void hold.saved?.().catch(() => {});
    if (this.#stopped || this.#refusal !== null) return;
    const now = Date.now();
    const renewed = this.#listened.get(accountId);
    this.#listened.set(accountId, renewed ?? 0);
    if (renewed !== undefined && now - renewed < LISTENER_LEASE_MS / 6) return;
    this.#listened.set(accountId, now);
    holdListener(this.#db, accountId, this.#owner, LISTENER_LEASE_MS, this.#known).then(
      // attempts another process could not send meanwhile are pending in the store: read them now
      () => this.#watchListened(),
      (error: unknown) => {
        this.#listened.set(accountId, 0);
        this.#report(error);
      },
    );
  }

  #listenerLeft(accountId: string): void {
    this.#listened.delete(accountId);
    if (this.#stopped) return;
    dropListener(this.#db, accountId, this.#owner, this.#known).catch((error: unknown) =>
      this.#report(error),
    );
  }

  /** Accounts whose listener polls this process, and when their row was last renewed (real ms). */
  readonly #listened = new Map<string, number>();
  #watchTimer: ReturnType<typeof setTimeout> | undefined;
  #watching = false;

  /**
   * While listeners poll this process, their accounts are watched: an account another process wrote
   * (a new delivery it could not send) is read again here, and its pending attempts go to the listener.
   */
  async #watchListened(): Promise<void> {
    const state = this.#state;
    if (state === null || this.#watching || this.#stopped || this.#refusal !== null) return;
    clearTimeout(this.#watchTimer);
    this.#watching = true;
    try {
      const ids = [...this.#listened.keys()].filter((id) => state.listeners.holds(id));
      if (ids.length === 0) return;
      const { accounts } = await accountVersions(this.#readDb, ids);
      const moved = ids.filter((id) => {
        const known = this.#versions.get(id);
        return accounts.has(id) && (known === undefined || known.version !== accounts.get(id));
      });
      for (const id of moved) {
        const hold = await this.prepare({ accountIds: [id] });
        hold.release();
        state.outbox.sendPendingNow(id);
      }
    } catch (error) {
      this.#report(error);
    } finally {
      this.#watching = false;
      if (!this.#stopped && this.#listened.size > 0) {
        this.#watchTimer = setTimeout(() => void this.#watchListened(), WATCH_LISTENED_MS);
        this.#watchTimer.unref?.();
      }
    }
  }

  #purging: Promise<void> | null = null;
  #purgeAgain = false;

  /**
   * Deletes what resets and removals hid, a batch per short transaction, right after their commit
   * (the retention sweep would otherwise find it within five minutes); one purge at a time, and one
   * asked for meanwhile runs once it ends.
   */
  #purgeSoon(): void {
    if (this.#stopped || this.#refusal !== null) return;
    if (this.#purging !== null) {
      this.#purgeAgain = true;
      return;
    }
    this.#purging = this.#reads
      .purge(() => this.#stopped || this.#refusal !== null)
      .then(
        () => {},
        (error: unknown) => this.#report(error),
      )
      .finally(() => {
        this.#purging = null;
        if (this.#purgeAgain) {
          this.#purgeAgain = false;
          this.#purgeSoon();
        }
      });
  }

  /** Stops: nothing more is saved (a change made after is never saved). */
  stop(): void {
    this.#stopped = true;
    this.#health.stop();
    clearTimeout(this.#watchTimer);
    clearTimeout(this.#backgroundTimer);
    this.#loader?.stop();
    for (const waits of this.#deliveryWaits.values())
      for (const wait of waits) wait.reject(unavailable("the mock stopped"));
    this.#deliveryWaits.clear();
  }

  /** Closes both pools. */
  async close(): Promise<void> {
    this.stop();
    // a purge under way ends after its step (it checks between two)
    await this.#purging;
    await Promise.allSettled([this.#db.close(), this.#readDb.close()]);
  }

  /** An error of work outside a request: logged, unless it is the store out of reach (logged once) or gone. */
  #report(error: unknown): void {
    if (isSchemaMoved(error)) {
      void this.#refuse();
      return;
    }
    if (this.#health.failed(error) || this.#stopped) return;
    // a background save whose session ended: its copies went, and the store's rows hold its work
    if (error instanceof TransactionEndedError) return;
    // another process wrote the sandbox row first (two processes starting together): this process
    // forgot its version and reads the row again at its next lock; nothing failed
    if (isSandboxMoved(error)) return;
    this.#options.onError?.(error);
  }

  /** What a request that failed before its work is answered: a 503 that says why, when it is known. */
  async #failure(error: unknown): Promise<unknown> {
    if (error instanceof ApiError) return error;
    if (error instanceof TransactionEndedError && !this.#health.failed(error)) {
      this.ended += 1;
      return new RunAgainError();
    }
    if (isSchemaMoved(error)) {
      await this.#refuse();
      return this.#refusalError();
    }
    if (this.#health.failed(error))
      return unavailable(
        "the mock's PostgreSQL store is out of reach; nothing of this request was kept: send it again",
      );
    return error;
  }

  /** A newer mock migrated the store: reads the versions, and refuses from then on (logged once). */
  async #refuse(): Promise<void> {
    if (this.#refusal !== null) return;
    try {
      await assertSchemaKnown(this.#readDb, this.#known);
    } catch (error) {
      if (error instanceof SchemaTooNewError) return this.#refuseWith(error);
      this.#report(error);
    }
  }

  #refuseWith(refusal: SchemaTooNewError): void {
    if (this.#refusal !== null) return;
    this.#refusal = refusal;
    // nothing more is written: no background save, no due pass, no sweep
    clearTimeout(this.#backgroundTimer);
    this.#loader?.stop();
    this.#log(`${refusal.message}. This process serves nothing more: every request is answered 503`);
  }

  #refusalError(): ApiError {
    return unavailable((this.#refusal as SchemaTooNewError).message);
  }

  /** The accounts a request locks: those it names, and those it reads bare (a reset, the account list). */
  async #lockIds(loader: AccountLoader, needs: AccountNeeds): Promise<string[]> {
    const ids = new Set(await loader.resolveIds(needs));
    for (const id of needs.bareAccountIds ?? []) if (isStorableText(id)) ids.add(id);
    if (needs.bareAll) for (const id of await this.#reads.accountIdsBy("all")) ids.add(id);
    return [...ids].sort();
  }

  /**
   * Brings this process's copies up to what the store holds, under the locks just taken: a copy of
   * another version (or of an account gone from the store) leaves memory, to be read again; a
   * sandbox that moved on is taken in.
   */
  async #refresh(
    tx: OpenTransaction,
    ids: readonly string[],
    versions: Versions,
    everyAccount = false,
  ): Promise<void> {
    const state = this.#state as MockState;
    if (versions.sandbox !== this.#sandboxVersion) {
      const sandbox = await readSandbox(tx);
      if (sandbox !== null) {
        adoptSavedSandbox(state, sandbox.value);
        this.#sandboxVersion = sandbox.version;
      }
    }
    let stale: string[] = [];
    for (const id of ids) {
      const copy = state.accounts.get(id);
      if (copy === undefined) continue;
      const known = this.#versions.get(id);
      const version = versions.accounts.get(id);
      // not in the store and never saved: made by a request of this process, not committed yet
      if (version === undefined && known === undefined) continue;
      if (known === undefined || known.account !== copy || known.version !== version) stale.push(id);
    }
    if (stale.length > 0) stale = await this.#catchUp(tx, stale, versions);
    // A call about every account (the account list) locked every live one: a copy of an account that
    // another process removed (or a reset of everything hid) is not among them, and must not be listed.
    if (everyAccount) {
      const locked = new Set(ids);
      for (const id of state.accounts.keys())
        if (!locked.has(id) && this.#versions.has(id) && !this.#holding.has(id)) stale.push(id);
    }
    if (stale.length === 0) return;
    this.refreshes += stale.length;
    this.#drop(stale);
  }

  /**
   * Brings copies that another process wrote since up to date in place, from the rows written above
   * the version each was read at (one round trip, under the locks just taken), rather than reading
   * their records again: what makes one account served by several processes cost what it changes,
   * not what it holds. Answers the copies that must be read again whole: a copy with changes of its
   * own not saved yet, one whose rows were deleted or hidden since (a reset, the retention limit), or
   * one whose records were written again elsewhere (see `adoptAccountChanges`).
   */
  async #catchUp(tx: OpenTransaction, stale: readonly string[], versions: Versions): Promise<string[]> {
    const state = this.#state as MockState;
    const loader = this.#loader as AccountLoader;
    const deliveryAccount = (id: string) => state.outbox.accountOf(id);
    const since = new Map<string, number>();
    const whole: string[] = [];
    for (const id of stale) {
      const copy = state.accounts.get(id);
      const known = this.#versions.get(id);
      const version = versions.accounts.get(id);
      if (
        copy !== undefined &&
        known !== undefined &&
        known.account === copy &&
        version !== undefined &&
        version > known.version &&
        !loader.isBare(id) &&
        !this.#writing.has(id) &&
        !this.#background.touches(id, deliveryAccount)
      )
        since.set(id, known.version);
      else whole.push(id);
    }
    if (since.size === 0) return whole;
    const changes = await readChanges(tx, since);
    for (const [id, knownVersion] of since) {
      const copy = state.accounts.get(id);
      const change = changes.get(id);
      const known = this.#versions.get(id);
      if (
        copy === undefined ||
        change === undefined ||
        // the copy moved while the rows were read (a timer's step, an attempt's outcome): read it whole
        known === undefined ||
        known.account !== copy ||
        known.version !== knownVersion ||
        this.#writing.has(id) ||
        this.#background.touches(id, deliveryAccount) ||
        change.trimmedVersion > knownVersion ||
        !adoptAccountChanges(state, copy, change)
      ) {
        whole.push(id);
        continue;
      }
      this.#versions.set(id, { account: copy, version: versions.accounts.get(id) as number });
      this.caughtUp += 1;
    }
    return whole;
  }

  /** Takes accounts' copies out of memory with their unsaved changes (the store's are read again). */
  #drop(ids: readonly string[]): void {
    const state = this.#state as MockState;
    const gone = new Set(ids);
    const deliveryAccount = (id: string) => state.outbox.accountOf(id);
    const dropped = this.#background.drop(gone, deliveryAccount);
    for (const id of dropped) this.#settleDelivery(id, unavailable("the change behind it was not saved"));
    const isDefault = gone.has(state.defaultAccount.id);
    state.unloadAccounts(gone, { evenDefault: true });
    this.#loader?.forget(gone);
    for (const id of gone) this.#versions.delete(id);
    if (isDefault) this.#defaultBack = true;
  }

  /** The default account's copy left memory: the next request that reads it makes it the default again. */
  #defaultBack = false;

  /**
   * Commits a group's changes in its transaction: those of the accounts it locked, and of accounts
   * its members made; what they changed in an account it did not lock is saved on its own, as a
   * background change.
   */
  async #commit(group: Group, tx: OpenTransaction, versions: Versions): Promise<void> {
    const state = this.#state as MockState;
    const changes = new ChangeSet();
    for (const member of group.members) {
      member.closed = true;
      changes.merge(member.changes.take());
    }
    const deliveryAccount = (id: string) => state.outbox.accountOf(id);
    // what timers changed meanwhile in the accounts this group holds: its copy is the store's, so
    // its commit saves those too (the background save would wait for this group's locks)
    changes.merge(this.#background.takeOf(group.locked, deliveryAccount));
    const mine = changes.byAccount(deliveryAccount);
    const own: ChangeSet[] = [];
    const accounts: string[] = [];
    for (const [id, part] of mine) {
      if (group.locked.has(id) || this.#isNew(id)) {
        own.push(part);
        accounts.push(id);
      } else this.#background.add(part);
    }
    // the group's own changes alone (byAccount split them; the flags are the members')
    const ownSet = emptyLike(changes);
    for (const part of own) ownSet.merge(part);
    // nothing to write: the locks go now (later changes of these accounts are saved on their own, and
    // must not wait for this group's end)
    if (ownSet.empty) return tx.rollback();
    await this.#write(tx, ownSet, accounts, versions, "request");
  }

  /** Writes changes in a transaction, bumps the versions and commits; drops the copies when it fails. */
  async #write(
    tx: OpenTransaction,
    changes: ChangeSet,
    accounts: readonly string[],
    versions: Versions,
    kind: "request" | "background",
  ): Promise<void> {
    const state = this.#state as MockState;
    const batch = batchOf(state, changes);
    for (const id of accounts) this.#writing.add(id);
    const deliveries = [...changes.deliveries];
    try {
      const sandboxChanged = changes.sandbox || changes.everything;
      const write = await sharedWrite(
        batch,
        accounts,
        sandboxChanged ? { expected: this.#sandboxVersion } : null,
      );
      // The copies are at their new versions from the commit on. Each write bumps a locked account's
      // version by one, so they are known before: set first, as a request of this process waiting on
      // these rows may be handed them before this one hears back (and would take its copies for stale).
      // A write that fails drops the copies.
      for (const id of accounts) {
        const copy = state.accounts.get(id);
        const locked = versions.accounts.get(id);
        if (copy !== undefined) this.#versions.set(id, { account: copy, version: (locked ?? 0) + 1 });
      }
      if (sandboxChanged) this.#sandboxVersion += 1;
      const results = await tx.batch(write.statements, { commit: true });
      const written = write.versions(results);
      for (const [id, version] of written.accounts) {
        const copy = state.accounts.get(id);
        if (copy !== undefined) this.#versions.set(id, { account: copy, version });
      }
      if (written.sandbox >= 0) this.#sandboxVersion = written.sandbox;
      this.commits += 1;
      for (const id of deliveries) this.#settleDelivery(id, null);
      // a reset's old rows and a removed account's rows are deleted behind it, a batch at a time
      if (batch.everything || batch.resetAccounts.length > 0 || batch.removedAccounts.length > 0)
        this.#purgeSoon();
    } catch (error) {
      await tx.rollback();
      // this process's copies hold what the store may not: they go, and are read again
      this.#drop(accounts);
      for (const id of deliveries) this.#settleDelivery(id, unavailable("its change was not saved"));
      if (isSandboxMoved(error)) {
        this.#sandboxVersion = -1;
        if (kind === "request")
          throw unavailable("another mock process changed the sandbox at the same time: send it again");
      }
      if (isSchemaMoved(error)) {
        await this.#refuse();
        if (kind === "request") throw this.#refusalError();
      }
      if (kind === "background") throw error;
      // nothing of it was kept, and the copies went: the engine runs the request again
      if (error instanceof TransactionEndedError && !this.#health.failed(error)) {
        this.ended += 1;
        throw new RunAgainError();
      }
      // the store out of reach is logged once for the outage, not once per request
      const outOfReach = this.#health.failed(error);
      if (error instanceof CommitUnknownError) throw changesNotStored("unknown");
      if (!outOfReach) this.#options.onError?.(error);
      throw changesNotStored("no");
    } finally {
      for (const id of accounts) this.#writing.delete(id);
    }
  }

  /** The requests of this process holding an account commit now (see where it is called). */
  #commitHoldersSoon(accountId: string): void {
    for (const holder of this.#holding.get(accountId) ?? [])
      if (!holder.closed) setImmediate(() => void holder.saved?.().catch(() => {}));
  }

  /** Whether a request of this process holds an account's lock and has not committed yet. */
  #heldOpen(accountId: string): boolean {
    for (const hold of this.#holding.get(accountId) ?? []) if (!hold.closed) return true;
    return false;
  }

  /** Whether an account was made by this process and is not in the store yet. */
  #isNew(id: string): boolean {
    return (this.#state as MockState).accounts.has(id) && !this.#versions.has(id);
  }

  #saveBackgroundSoon(ms: number): void {
    if (this.#stopped) return;
    if (this.#backgroundRunning) {
      this.#backgroundAgain = true;
      return;
    }
    if (this.#backgroundTimer !== undefined) return;
    const run = () => {
      this.#backgroundTimer = undefined;
      void this.#saveBackground();
    };
    this.#backgroundTimer = ms === 0 ? (setImmediate(run) as never) : setTimeout(run, ms);
  }

  /**
   * Saves the changes made outside requests, optimistically (see the file's comment): an account a
   * request of this process holds waits for it; one another process holds is tried again shortly; a
   * copy at another version than the store's is dropped with its changes.
   */
  async #saveBackground(): Promise<void> {
    const state = this.#state;
    const begin = this.#db.begin?.bind(this.#db);
    if (state === null || begin === undefined || this.#backgroundRunning || this.#stopped) return;
    if (this.#refusal !== null) return;
    if (!this.#background.hasChanges()) return;
    this.#backgroundRunning = true;
    let retry = false;
    let tx: OpenTransaction | null = null;
    try {
      tx = await begin();
    } catch (error) {
      this.#report(error);
      retry = true;
    }
    try {
      if (tx === null) return;
      const changes = this.#background.take();
      const deliveryAccount = (id: string) => state.outbox.accountOf(id);
      const parts = changes.byAccount(deliveryAccount);
      // The copies these changes were made on: one read again while this save waits (a request's
      // refresh) holds the work they derive from, and their objects are no longer the account's (a
      // payout of the old copy would be taken for one deleted). Such changes go.
      const copies = new Map([...parts.keys()].map((id) => [id, state.accounts.get(id)]));
      const replaced = (id: string) => state.accounts.get(id) !== copies.get(id);
      const later = new Map<string, ChangeSet>();
      const ids: string[] = [];
      const holders: string[] = [];
      for (const [id, part] of parts) {
        if (this.#heldOpen(id) || this.#writing.has(id)) {
          later.set(id, part);
          retry = true;
          // an event waiting for this save while a request here holds its account, and may wait for
          // the event (a flush): the request commits now, and takes the event with it (once the
          // event is back in the set, below)
          if ([...part.deliveries].some((d) => this.#deliveryWaits.has(d))) holders.push(id);
        } else ids.push(id);
      }
      let writing: string[] = [];
      try {
        const locked = await lockAccounts(tx, ids, this.#known, { skipLocked: true });
        const missing = ids.filter((id) => !locked.accounts.has(id));
        const present = (await accountVersions(tx, missing)).accounts;
        const stale: string[] = [];
        const own = emptyLike(changes);
        for (const id of ids) {
          const part = parts.get(id) as ChangeSet;
          const version = locked.accounts.get(id);
          const known = this.#versions.get(id);
          if (replaced(id)) this.#discard(part);
          else if (version === undefined) {
            if (present.has(id)) {
              // another process holds it now: again shortly
              later.set(id, part);
              retry = true;
            } else if (this.#isNew(id)) {
              own.merge(part);
              writing.push(id);
            } else stale.push(id); // gone from the store
          } else if (
            known !== undefined &&
            known.account === state.accounts.get(id) &&
            known.version === version
          ) {
            own.merge(part);
            writing.push(id);
          } else stale.push(id);
        }
        if (stale.length > 0) {
          this.refreshes += stale.length;
          // back in the set first, so that the drop finds their deliveries and rejects them
          this.#background.add(collect(parts, stale), { quiet: true });
          this.#drop(stale);
        }
        if (own.empty) await tx.rollback();
        else {
          const accounts = writing;
          writing = [];
          await this.#write(tx, own, accounts, locked, "background");
        }
      } catch (error) {
        await tx.rollback();
        this.#drop(writing);
        this.#report(error);
      }
      const back = new ChangeSet();
      for (const [id, part] of later) {
        if (replaced(id)) this.#discard(part);
        else back.merge(part);
      }
      if (!back.empty) this.#background.add(back, { quiet: true });
      for (const id of holders) this.#commitHoldersSoon(id);
    } finally {
      this.#backgroundRunning = false;
      if (this.#backgroundAgain) {
        this.#backgroundAgain = false;
        this.#saveBackgroundSoon(0);
      } else if (retry) this.#saveBackgroundSoon(BUSY_RETRY_MS);
    }
  }

  /** Forgets changes made on a copy that was read again: the events among them are never sent. */
  #discard(part: ChangeSet): void {
    for (const id of part.deliveries) this.#settleDelivery(id, unavailable("its change was not saved"));
  }

  /** Reads in, under their locks, the accounts whose work fell due; each is saved again with its due time. */
  async #loadDue(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const hold = await this.prepare({ accountIds: [...ids] });
    try {
      await (hold.run as NonNullable<RequestHold["run"]>)(async () => {
        for (const id of ids) this.#state?.changes?.account(id);
        await (hold.saved as NonNullable<RequestHold["saved"]>)();
      });
    } finally {
      hold.release();
    }
  }

  /** Whether an account may leave memory: no request holds it, and nothing of it waits to be saved. */
  #holdsAll(accountId: string): boolean {
    if (this.#stopped || this.#holding.has(accountId) || this.#writing.has(accountId)) return false;
    const state = this.#state as MockState;
    return !this.#background.touches(accountId, (id) => state.outbox.accountOf(id));
  }

  /**
   * Claims the next attempt of a delivery for this process (one process sends each attempt): after
   * the outcome of its last attempt here is written.
   */
  async #claim(
    deliveryId: string,
    cycleAttempts: number,
  ): Promise<{ claimed: true } | { claimed: false; retryAt: number | null }> {
    const state = this.#state as MockState;
    await this.#attemptWrites.get(deliveryId);
    const accountOf = state.outbox.accountOf(deliveryId);
    const clockNow = () => (accountOf === null ? state.clock.now() : state.timeOf(accountOf).now());
    if (this.#refusal !== null) return { claimed: false, retryAt: null };
    // an attempt of an older copy still in flight here (the account was read again meanwhile): its
    // outcome is written first, and tells whether this attempt is still to make
    if (this.#claimed.has(deliveryId)) return { claimed: false, retryAt: clockNow() + 1_000 };
    // taken before the round trip: two copies of one delivery (the account read again while the first
    // waited for a slot) claiming side by side would both get it, the store's claim being this process's
    this.#claimed.add(deliveryId);
    let claim: Awaited<ReturnType<typeof claimAttempt>> = null;
    try {
      const tx = await (this.#db.begin as NonNullable<SqlDatabase["begin"]>)();
      try {
        claim = await claimAttempt(
          tx,
          deliveryId,
          this.#owner,
          cycleAttempts,
          this.#known,
          state.outbox.timeoutMs + CLAIM_MARGIN_MS,
        );
      } finally {
        await tx.rollback();
      }
    } catch (error) {
      // the store out of reach: the attempt waits (its row keeps it for whichever process comes first)
      this.#report(error);
      this.#claimed.delete(deliveryId);
      return { claimed: false, retryAt: clockNow() + 1_000 };
    }
    if (claim === true) return { claimed: true };
    this.#claimed.delete(deliveryId);
    if (claim === null) {
      // the store's delivery moved past this copy: whatever version this copy was taken at, it is read
      // again when next used (a listener's account at the next watch), and that copy makes the attempt
      if (accountOf !== null && !this.#holding.has(accountOf)) this.#versions.delete(accountOf);
      return { claimed: false, retryAt: null };
    }
    return { claimed: false, retryAt: clockNow() + claim.heldMs + 100 };
  }

  /** Writes a claimed attempt's outcome once the outbox has recorded all of it (same turn). */
  #saveAttemptSoon(deliveryId: string): void {
    if (this.#attemptWrites.has(deliveryId)) return;
    const writing = new Promise<void>((resolve) => queueMicrotask(resolve))
      .then(() => this.#saveAttempt(deliveryId))
      .catch((error: unknown) => {
        // the attempt was made; its outcome is lost with this copy: when the claim runs out, another
        // process (or this one, reading the account again) sends it again under the same webhook-id
        this.#report(error);
        const accountId = this.#state?.outbox.accountOf(deliveryId) ?? null;
        if (accountId !== null && !this.#holding.has(accountId)) this.#drop([accountId]);
      })
      .finally(() => {
        this.#claimed.delete(deliveryId);
        this.#attemptWrites.delete(deliveryId);
        this.#state?.outbox.letGo(deliveryId);
      });
    this.#attemptWrites.set(deliveryId, writing);
  }

  async #saveAttempt(deliveryId: string): Promise<void> {
    const state = this.#state as MockState;
    const accountId = state.outbox.accountOf(deliveryId);
    if (accountId === null || this.#db.begin === undefined) return;
    const changes = new ChangeSet();
    changes.deliveries.add(deliveryId);
    const batch = batchOf(state, changes);
    const due = batch.nextDue.find((n) => n.id === accountId)?.dueMs ?? null;
    batch.nextDue = [];
    const copy = state.accounts.get(accountId);
    // the attempt of a copy read again meanwhile: the copy in memory does not hold its outcome
    const detached = state.outbox.isDetached(deliveryId);
    const tx = await this.#db.begin();
    try {
      const versions = await writeAttempt(tx, batch, accountId, deliveryId, due, this.#known);
      await tx.commit();
      // this copy stays current only if it was (the attempt's outcome is all the write changed)
      const known = this.#versions.get(accountId);
      if (
        !detached &&
        versions !== null &&
        known !== undefined &&
        known.account === copy &&
        known.version === versions.before
      )
        this.#versions.set(accountId, { account: known.account, version: versions.after });
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }

  /** Resolves once a delivery's change is committed (it is then sent); rejects when it was not saved. */
  #deliverySaved(deliveryId: string): Promise<void> {
    const hold = this.#context.getStore();
    const inBackground = this.#background.holdsDelivery(deliveryId);
    const accountId = this.#state?.outbox.accountOf(deliveryId) ?? null;
    // a request that holds the delivery's account commits the background's changes of it too
    const own =
      hold !== undefined &&
      !hold.closed &&
      (hold.changes.holdsDelivery(deliveryId) ||
        (inBackground && accountId !== null && hold.locked.has(accountId)));
    if (!own && !inBackground) return Promise.resolve();
    // A timer's event of an account a request here holds cannot be saved on its own until that
    // request ends, and the request may be waiting for it (a flush): the request commits now, and
    // takes the event with it.
    if (!own && accountId !== null) this.#commitHoldersSoon(accountId);
    // The request's own event: sent once the request commits. A request that waits for its own
    // webhooks (awaitWebhooks, a redelivery) would wait forever for its end: it commits at its first
    // wait instead, after the work it does at once (what it changes after that is saved on its own).
    if (own) setImmediate(() => void hold.saved?.().catch(() => {}));
    return new Promise<void>((resolve, reject) => {
      const waits = this.#deliveryWaits.get(deliveryId) ?? [];
      waits.push({ resolve, reject });
      this.#deliveryWaits.set(deliveryId, waits);
    });
  }

  #settleDelivery(deliveryId: string, error: unknown): void {
    const waits = this.#deliveryWaits.get(deliveryId);
    if (waits === undefined) return;
    // still held by changes not saved yet (put back for later): it waits on
    if (error === null && this.#background.holdsDelivery(deliveryId)) return;
    this.#deliveryWaits.delete(deliveryId);
    for (const wait of waits) {
      if (error === null) wait.resolve();
      else wait.reject(error);
    }
  }
}

/** A change set with another's flags and nothing else. */
function emptyLike(changes: ChangeSet): ChangeSet {
  const set = new ChangeSet();
  set.everything = changes.everything;
  set.sandbox = changes.sandbox;
  return set;
}

/** The parts of these accounts, merged. */
function collect(parts: Map<string, ChangeSet>, ids: readonly string[]): ChangeSet {
  const all = new ChangeSet();
  for (const id of ids) {
    const part = parts.get(id);
    if (part !== undefined) all.merge(part);
  }
  return all;
}

/** A 503 the caller may send again: nothing of the request was kept. */
function unavailable(message: string): ApiError {
  return new ApiError("INTERNAL_ERROR", message, { status: 503, headers: { "retry-after": "1" } });
}

/**
 * Opens a shared sandbox on PostgreSQL: migrates it (one process at a time), creates its sandbox and
 * default account if it is new (the first process to come does), and reads the sandbox and the default
 * account. Every other account is read when a request names it.
 */
export async function openSharedStore(
  url: string,
  engineOptions: EngineOptions,
  options: SharedStoreOptions = {},
): Promise<SharedStore> {
  const db = await openPostgres(url, {
    max: options.connections ?? 16,
    idleInTransactionMs: options.idleInTransactionMs ?? IDLE_IN_TRANSACTION_MS,
  });
  const readDb = await openPostgres(url, { max: 4 });
  try {
    await migrate(db, options.migrations);
    await assertSchemaKnown(db, knownVersion(options.migrations ?? MIGRATIONS));
    await createIfNew(db, engineOptions);
    const reads = new SqlStateStore(readDb);
    for (;;) {
      const sandbox = await readSandbox(readDb);
      if (sandbox === null) throw new Error("the shared sandbox has no sandbox row after its creation");
      const versions: Versions = { accounts: new Map(), sandbox: sandbox.version };
      const saved = await reads.loadStart(options.defaultPublicKey, { records: false });
      if (saved !== null)
        return new SharedStore(db, readDb, { saved, versions }, { ...options, where: shownUrl(url) });
    }
  } catch (error) {
    await Promise.allSettled([db.close(), readDb.close()]);
    if (error instanceof SchemaTooNewError) throw error;
    // where, and why; never the URL's password (the driver's message holds none)
    throw new Error(
      `could not connect to the PostgreSQL store at ${shownUrl(url)}: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
}

/** A new store gets its sandbox row and default account once, from whichever process comes first. */
async function createIfNew(db: SqlDatabase, engineOptions: EngineOptions): Promise<void> {
  if ((await readSandbox(db)) !== null) return;
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [FIRST_START_LOCK]);
    if ((await readSandbox(tx)) !== null) return;
    const state = new MockState(engineOptions, expireOnClock);
    try {
      const changes = new ChangeTracker(() => {});
      changes.everything();
      changes.account(state.defaultAccount.id);
      changes.sandbox();
      const write = await sharedWrite(batchOf(state, changes.take()), [state.defaultAccount.id], {
        expected: 0,
      });
      await runEach(tx, write.statements);
    } finally {
      state.close();
    }
  });
}
