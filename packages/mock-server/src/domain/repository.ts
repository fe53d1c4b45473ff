// What the payment rules ask of a store (docs/decisions/sandbox-store.md): read a record, read a page,
// write what changed, and the account with its totals. The memory store and the SQL stores (PGlite,
// PostgreSQL) each implement it; the rules in this room never know which one runs them.
//
// One request is one transaction (`SandboxStore.transaction`). Reads are awaited; writes are handed
// over at once and go with the commit, so a transaction's writes cost one round trip. A write an
// `ApiError` refusal comes after is dropped with the transaction, unless that error keeps the changes
// (`ApiError.keep`: a payout the bank rejected at creation exists, and says so).
import type { Account } from "./accounts.js";
import type { DeliveryRecord } from "./deliveries.js";
import type { Fault, FaultAction, FaultParams, RateLimitParams } from "./faults.js";
import type { ListPage, PagePlace } from "./lists.js";
import type { PixKeyEntry, RegisterPixKeyParams } from "./pix-directory.js";
import type { PayinRecord, PayoutRecord } from "./records.js";

/** Work a record has due at a moment: an expiry, a reserve release, a payout's next step. */
export interface DueItem {
  kind: DueKind;
  accountId: string;
  /** The payin or payout it is about. */
  resourceId: string;
  /** When, in epoch ms: on the account's clock (`clock: "account"`) or real time (`"real"`). */
  at: number;
  /**
   * Expiries and reserve releases run on the account's clock (a test moves it); a payout's automatic
   * step comes after real time (a second of it by default), whatever the clock says.
   */
  clock: "account" | "real";
}

/** The kinds of due work. */
export const DUE_KINDS = ["payin.expire", "payin.release", "payout.advance"] as const;

/** A kind of due work. */
export type DueKind = (typeof DUE_KINDS)[number];

/** The sandbox-wide settings every request reads with its transaction (one small row). */
export interface SandboxSettings {
  /** The sandbox clock minus real time, in ms: moving it moves every account's clock. */
  clockOffsetMs: number;
  /** The default account's id (kept across resets). */
  defaultAccountId: string | null;
  /** The merchant API's rate limit, when switched on. */
  rateLimit: RateLimitParams | null;
  /** Whether any fault is armed (a request looks for one only then). */
  faultsArmed: boolean;
}

/** Which payouts `GET /payout` answers, as checked by the contract's query schema. */
export interface PayoutQuery {
  status?: string | undefined;
  referenceId?: string | undefined;
  /** createdAt bounds in epoch ms, inclusive. */
  from?: number | undefined;
  to?: number | undefined;
  /** Entries skipped before the page (`(page - 1) * limit`). */
  skip: number;
  limit: number;
  /** The total that matches, when the caller knows it (the account's counts): the store reads the page alone. */
  total?: number | undefined;
}

/** A page of payouts and how many match in all. */
export interface PayoutListing {
  records: PayoutRecord[];
  total: number;
}

/** Which deliveries a page of the log holds, as a store reads them. */
export interface DeliveryQuery {
  accountId?: string | undefined;
  resourceId?: string | undefined;
  /** The status the event reports. */
  status?: string | undefined;
  state?: DeliveryRecord["state"] | undefined;
  /** `newest` first (the MCP tool), or `oldest` first (the control list). */
  order: "newest" | "oldest";
}

/** One attempt of a delivery handed to this process to make (a claim, with a lease). */
export interface ClaimedAttempt {
  /** A copy of the delivery as claimed: the attempt's outcome is written on it, then stored. */
  delivery: DeliveryRecord;
  /** Which attempt of the cycle it is: the claim holds only while the store's count is still this. */
  cycleAttempts: number;
  /** The account's signing secrets now (two during a rotation's grace, none when unsigned). */
  secrets: readonly string[];
  /** The account's clock now, epoch ms: the attempt's time. */
  accountNow: number;
}

/** The place of a request's transaction: which accounts it changes and how it reads. */
export interface StoreTx {
  /** The sandbox's settings, as of the transaction's start. */
  readonly sandbox: SandboxSettings;
  /** Real time now, in epoch ms (the store's clock for a shared store: every process agrees). */
  realNow(): number;

  // accounts
  /**
   * An account by id. `lock`: held until the transaction ends, so its totals can be checked and
   * changed; every request that changes an account takes it first.
   */
  account(id: string, options?: { lock?: boolean }): Promise<Account | null>;
  /** The account a public key opens (credentials are then checked against its secret key's hash). */
  accountByPublicKey(publicKey: string, options?: { lock?: boolean }): Promise<Account | null>;
  /**
   * The account a request's public key opens, not locked, and whether work is due on it now (a request
   * then takes its lock and runs it first); what every merchant request reads first.
   */
  caller(publicKey: string): Promise<{ account: Account; due: boolean } | null>;
  /** A new account. A public key already used is refused with `INVALID_DATA` at the write. */
  insertAccount(account: Account): void;
  /** The account's settings, totals and clock as they now are. */
  updateAccount(account: Account): void;
  /**
   * The account back to its creation: every record, delivery, due work, fault and own PIX key of it
   * is gone for every reader at once (a store deletes the rows later, a batch at a time).
   */
  resetAccount(account: Account): void;
  /** Stamps the account's last use (retention counts from it). */
  touchAccount(accountId: string): void;
  /** A page of accounts, oldest first (by id). */
  accountPage(place: PagePlace, onlyId?: string): Promise<ListPage<Account>>;

  // payins
  payin(id: string): Promise<PayinRecord | null>;
  payinByThreeDS(transactionId: string): Promise<PayinRecord | null>;
  insertPayin(payin: PayinRecord): void;
  updatePayin(payin: PayinRecord): void;
  /** A page of payins, newest first, of one account or of all. */
  payinPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayinRecord>>;
  /** The next boleto number ("nosso número") of the sandbox: taken without any lock, never twice. */
  nextBoletoNumber(): Promise<number>;

  // payouts
  payout(id: string): Promise<PayoutRecord | null>;
  payoutByReference(accountId: string, referenceId: string): Promise<PayoutRecord | null>;
  insertPayout(payout: PayoutRecord): void;
  updatePayout(payout: PayoutRecord): void;
  /** `GET /payout`: newest first (createdAt desc, id desc), with the total that matches. */
  payoutList(accountId: string, query: PayoutQuery): Promise<PayoutListing>;
  /** A page of payouts, newest first, of one account or of all. */
  payoutPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PayoutRecord>>;
  /**
   * Drops an account's oldest records in a final status (a payout COMPLETED too) while it holds more
   * than `max` payins or payouts (the retention limit), with their deliveries and due work; answers
   * how many payins went and the payouts that went (the caller keeps the account's payout counts).
   */
  trimRecords(account: Account, max: number): Promise<{ payins: number; payouts: PayoutRecord[] }>;

  // due work
  /** Schedules (or moves) a record's due work of a kind; one per kind and record. */
  schedule(item: DueItem): void;
  /** Drops a record's due work of a kind. */
  unschedule(kind: DueKind, resourceId: string): void;
  /**
   * Takes the account's work due by `accountNow` (its clock) and `realNow`, oldest first, at most
   * `limit` items: gone from the store once the transaction commits.
   */
  takeDue(accountId: string, accountNow: number, realNow: number, limit: number): Promise<DueItem[]>;
  /** Whether the account has work due by `accountNow` (its clock) or `realNow` (a cheap look, no lock). */
  hasDue(accountId: string, accountNow: number, realNow: number): Promise<boolean>;
  /** The account's clock moved: its due work on that clock keeps its account time. */
  clockMoved(account: Account): void;

  // webhook deliveries
  insertDelivery(delivery: DeliveryRecord): void;
  delivery(id: string): Promise<DeliveryRecord | null>;
  updateDelivery(delivery: DeliveryRecord): void;
  deliveryPage(filter: DeliveryQuery, place: PagePlace): Promise<ListPage<DeliveryRecord>>;

  // faults, the PIX directory, the sandbox
  /** Takes one use of the first armed fault that matches a request (of the account, or of any). */
  takeFault(method: string, path: string, accountId: string | null): Promise<FaultAction | null>;
  addFault(params: FaultParams): Promise<Fault>;
  faults(accountId?: string): Promise<Fault[]>;
  clearFaults(accountId?: string): void;
  /** A registered key (the account's own first), or none. */
  pixKey(type: string, normalizedKey: string, accountId: string): Promise<PixKeyEntry | null>;
  registerPixKey(entry: PixKeyEntry & RegisterPixKeyParams): void;
  /** A page of registered keys (every account's, or the account's view: global and its own). */
  pixKeyPage(accountId: string | undefined, place: PagePlace): Promise<ListPage<PixKeyEntry>>;
  /** The sandbox's settings as they now are (its clock, its rate limit). */
  updateSandbox(settings: SandboxSettings): void;
  /**
   * The whole sandbox back to its start: every account but the default one gone, the default one
   * reset, registered keys and faults gone, the clock at real time.
   */
  resetSandbox(defaultAccount: Account): void;
}

/** What a transaction is about, so that a store can take its locks in one order. */
export interface TxScope {
  /** Whether the transaction may write; a read-only one takes no lock. @default true */
  write?: boolean;
  /**
   * The public key of the request's credentials, when it has them: a store may read that account
   * with the transaction's first statements (`StoreTx.caller` then answers without a round trip).
   */
  caller?: string;
}

/** A sandbox's state, wherever it is kept. */
export interface SandboxStore {
  /** Which kind of store, for the start banner and errors. */
  readonly kind: "memory" | "embedded" | "shared";
  /** Where it is (a URL's password is never shown). */
  readonly description: string;
  /**
   * Whether several processes serve this store: a process then waits for a webhook's attempt wherever
   * it is made, and never sends an account's attempts while another process's listener holds them.
   */
  readonly shared: boolean;
  /** Whether a newer mock migrated the store: this process answers every request 503 then. */
  readonly refused: boolean;
  /** How often, at most, this process stamps an account's last use (a short retention asks more often). */
  setTouchEvery?(ms: number): void;
  /**
   * Arms the automatic step of every payout that is moving and has none (a store an earlier process
   * filled with `--manual`), at `atRealMs`, for accounts that do not keep their payouts still.
   */
  armPayoutSteps?(atRealMs: number): Promise<void>;
  /** Runs `work` as one transaction, and commits it unless it threw (see `ApiError.keep`). */
  transaction<T>(work: (tx: StoreTx) => Promise<T>, scope?: TxScope): Promise<T>;
  /**
   * Claims delivery attempts due now for `owner` (a lease of `leaseMs`): of `accountId`, or of any
   * account; never an account whose `paykit-mock listen` is held by another owner. At most `limit`.
   */
  claimAttempts(
    owner: string,
    options: { accountId?: string; ids?: readonly string[]; limit: number; leaseMs: number },
  ): Promise<ClaimedAttempt[]>;
  /**
   * Extends the leases `owner` still holds on these deliveries to `leaseMs` from now (a process renews
   * the attempts it is making, so a short lease is enough while it lives; docs/decisions/sandbox-store.md).
   */
  renewClaims(owner: string, ids: readonly string[], leaseMs: number): Promise<void>;
  /** Frees every claim `owner` still holds (a process that stops): another process may make them at once. */
  releaseClaims(owner: string): Promise<void>;
  /** Writes an attempt's outcome, if the claim still holds; answers whether it did. */
  finishAttempt(owner: string, claim: ClaimedAttempt, outcome: DeliveryRecord): Promise<boolean>;
  /** Lets the held out-of-order events (of the account, or of every account) go now. */
  releaseHolds(accountId?: string): Promise<void>;
  /**
   * How many attempts are open now: deliveries (of the account, or these ids, or every one) whose attempt
   * is due and not yet made, or being made under a live lease, by any process.
   */
  openAttempts(filter: { accountId?: string; ids?: readonly string[] }): Promise<number>;
  /** Accounts with due work now (for the background worker), at most `limit`. */
  dueAccounts(limit: number): Promise<string[]>;
  /**
   * When the next work falls due in real epoch ms, for a store that knows it without asking (memory);
   * undefined for one the worker polls.
   */
  nextWake(): number | undefined;
  /**
   * Takes or renews an account's `paykit-mock listen` for `listener` polling through process `owner`,
   * for `leaseMs`; a listener another one took over is refused (`"retired"`) and told so, wherever
   * it polls. Answers the listener it took over from, if any.
   */
  holdListener(
    accountId: string,
    owner: string,
    listener: string,
    leaseMs: number,
    events: readonly string[] | null,
  ): Promise<{ retired: true } | { retired: false; previous: string | null }>;
  /**
   * The account's pending deliveries a listener takes (of `events`, all when null; of `resourceIds`,
   * all when absent) are due now, whatever their retry's time: a listener attached, or a later event of
   * their resource was queued.
   */
  bringForward(
    accountId: string,
    events: readonly string[] | null,
    resourceIds?: readonly string[],
  ): Promise<void>;
  /** The holder of an account's listener now, if its lease is live, and the events it takes (null: all). */
  listenerOf(accountId: string): Promise<{ owner: string; listener: string; events: string[] | null } | null>;
  /** Lets an account's listener go (it stopped), if it still holds it. */
  dropListener(accountId: string, listener: string): Promise<void>;
  /** Removes the accounts nobody used for `retentionMs` (never the default one); answers their ids. */
  sweep(retentionMs: number): Promise<string[]>;
  /** Deletes rows that resets and removals hid, a batch at a time; answers whether more are left. */
  purge(): Promise<boolean>;
  /** Closes the store (after the last transaction). Idempotent. */
  close(): Promise<void>;
}
