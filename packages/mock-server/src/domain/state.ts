import { type KnownPayinStatus, type KnownPayoutStatus, WEBHOOK_TIMEOUT_MS } from "@paykit/contract";
import {
  DEFAULT_DELIVERY_CONCURRENCY,
  type DeliveryConcurrency,
  DeliverySlots,
} from "../internal/delivery-slots.js";
import { AccountTime } from "./account-time.js";
import {
  Account,
  type AccountKeys,
  Authenticator,
  type CreateAccountParams,
  newKeyPair,
  newWebhookSecret,
} from "./accounts.js";
import type { ChangeTracker } from "./changes.js";
import { MockClock } from "./clock.js";
import { ApiError } from "./errors.js";
import { Faults, RateLimiter } from "./faults.js";
import { randomString, UlidFactory } from "./ids.js";
import { Listeners } from "./listeners.js";
import { Outbox, type WebhookFetch } from "./outbox.js";
import { PayinIndex } from "./payin-index.js";
import { PixDirectory, type PixDirectoryMode, type RegisterPixKeyParams } from "./pix-directory.js";
import { PayinRecord, type PayoutRecord, payinWebhookJson, payoutJson } from "./records.js";
import { retentionMs } from "./retention-period.js";
import type { SavedSandbox } from "./saved.js";
import { unrefTimer } from "./scheduler.js";
import type { TraceContext } from "./trace-context.js";

/** Options of a mock engine. */
export interface EngineOptions {
  /**
   * Whether payouts move one processing step per `advanceIntervalMs` on their own; `false` is the
   * CLI's `--manual`, leaving every step to the control API. An account's own `autoAdvance` wins.
   * @default true
   */
  autoAdvance?: boolean;
  /** Real time between two automatic payout steps, in ms. @default 1000 */
  advanceIntervalMs?: number;
  /**
   * The default account created at start and after every reset: KYC approved, cards enabled,
   * automatic approval, 1000000 cents available. Fix `publicKey`/`secretKey` here (`--default-keys`).
   */
  defaultAccount?: CreateAccountParams;
  /** Sends webhook deliveries. @default globalThis.fetch */
  fetch?: WebhookFetch;
  /**
   * Most webhook deliveries in flight at once, per receiver origin and overall; the rest wait for a
   * slot, so a receiver that never answers holds a bounded number of sockets.
   * @default { perOrigin: 10, total: 100 }
   */
  webhookConcurrency?: Partial<DeliveryConcurrency>;
  /** How long a webhook receiver has to answer, in ms. @default 10000 */
  webhookTimeoutMs?: number;
  /** When set, every `/_mock` control call needs `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /**
   * Makes the PIX key directory strict by default: only seeded and registered keys are found (the CLI's
   * `--strict-pix-directory`). An account's own `pixDirectory` wins.
   * @default false (open: every well-formed key except `notfound@bank.test` is found)
   */
  strictPixDirectory?: boolean;
  /**
   * Retention for a mock left running for weeks: at most this many payins and this many payouts per
   * account; beyond it the oldest records in a final status (a payout COMPLETED too) are dropped with
   * their webhook deliveries, from memory and from a durable store (a dropped record answers 404, and
   * its payout `referenceId` may be used again). The CLI's `--max-records`.
   * @default unlimited
   */
  maxRecords?: number;
  /**
   * Removes accounts no request used for this long, with their payins, payouts, deliveries and PIX
   * keys: ms, or a duration such as `"30d"`, `"12h"`, `"90m"`, `"45s"`; `0` or `"off"` keeps every
   * account. The default account is never removed. With a durable store the store's clock decides
   * (`now()` in SQL), and its rows are deleted a batch at a time. The CLI's `--retention`.
   * @default off (`createMockServer` with a `dataDir` or `url` store: 30 days)
   */
  retention?: number | string;
  /** PIX keys registered on top of the seed directory (also after a reset). */
  pixKeys?: RegisterPixKeyParams[];
  /** Real wall clock in epoch ms; the mock clock starts from it. @default Date.now */
  now?: () => number;
}

/** How often, at most, an account's last use is stamped with a long retention. */
const TOUCH_EVERY_MS = 60_000;

/** The mock acquirer's ISPB in the end-to-end ids of its payouts (fictitious). */
export const MOCK_ACQUIRER_ISPB = "99999004";

const DEFAULT_ACCOUNT: CreateAccountParams = {
  kycApproved: true,
  creditCardEnabled: true,
  payoutApproval: "automatic",
  balance: 1_000_000,
};

/**
 * The whole in-memory state of the mock service: accounts, payins, payouts, the PIX directory, the
 * clock and its schedule, the webhook outbox and the faults. Single-threaded: every operation that
 * checks and changes money runs without an `await` in between.
 */
export class MockState {
  /** The sandbox clock; every account's clock is it plus the account's own offset. */
  readonly clock: MockClock;
  /** Each account's clock and schedule, by account id. */
  readonly #times = new Map<string, AccountTime>();
  readonly ids = new UlidFactory();
  readonly directory = new PixDirectory();
  readonly faults = new Faults();
  readonly rateLimiter = new RateLimiter();
  readonly outbox: Outbox;
  /** The `paykit-mock listen` listeners attached to accounts. */
  readonly listeners: Listeners;
  /**
   * The trace context of the request that created each payin/payout, carried to its webhooks. Creation
   * records it as soon as the record exists, so even a webhook sent before the request returns has it.
   */
  readonly traces = new WeakMap<PayinRecord | PayoutRecord, TraceContext>();
  readonly accounts = new Map<string, Account>();
  readonly accountsByPublicKey = new Map<string, Account>();
  /** The merchant API's Basic auth over {@link accountsByPublicKey}. */
  readonly authenticator = new Authenticator(this.accountsByPublicKey);
  /** Every payin by id. */
  readonly payins = new PayinIndex();
  readonly payinsByThreeDSTransaction = new Map<string, PayinRecord>();
  readonly autoAdvance: boolean;
  /** The directory mode of accounts without their own. */
  readonly pixDirectory: PixDirectoryMode;
  readonly advanceIntervalMs: number;
  /** Records kept per account and kind; Infinity without a retention limit. */
  readonly maxRecords: number;
  readonly adminToken: string | undefined;
  /** The real wall clock in epoch ms (not the mock clock): when accounts were last used. */
  readonly realNow: () => number;
  /** Accounts unused this long (ms) are removed; 0 keeps every account (`retention`). */
  readonly retentionMs: number;
  /** How often, at most, an account's last use is stamped: a durable store writes each stamp. */
  readonly #touchEveryMs: number;
  defaultAccount!: Account;
  // The default account keeps its id and keys across resets.
  #defaultAccountId: string;
  /** Whether the default account's keys were given (`--default-keys`) rather than made at start. */
  readonly defaultKeysFixed: boolean;
  /** Whether the default account's webhook secret was given (`--webhook-secret`). */
  readonly defaultWebhookSecretFixed: boolean;
  /** What changed since the last save, for a durable store; null in memory mode (nothing to save). */
  changes: ChangeTracker | null = null;
  boletoSeq = 0;
  /** The bank page's per-payin token, which its decision form must post back (cleared on reset). */
  readonly #pageTokens = new Map<string, string>();
  /** Bumped by every reset so that timers of an older state do nothing. */
  generation = 0;
  readonly #advanceTimers = new Set<ReturnType<typeof setTimeout>>();
  readonly #defaultParams: CreateAccountParams;
  readonly #extraKeys: RegisterPixKeyParams[];
  #closed = false;
  /** The expiry every PIX and BOLETO payin schedules: one function for all of them. */
  readonly expireOnClock: (payin: PayinRecord) => void;

  /**
   * `expirePayin` is the payins module's expiry, handed in by the engine, so that the state does not
   * import the modules that act on it (they import the state).
   */
  constructor(options: EngineOptions, expirePayin: (state: MockState, payin: PayinRecord) => void) {
    this.expireOnClock = (payin) => expirePayin(this, payin);
    this.clock = new MockClock(options.now);
    this.realNow = options.now ?? Date.now;
    this.retentionMs = retentionMs(options.retention);
    // a minute, or a quarter of a short retention, so that a stamp is never as old as the retention
    this.#touchEveryMs =
      this.retentionMs > 0 ? Math.min(TOUCH_EVERY_MS, this.retentionMs / 4) : TOUCH_EVERY_MS;
    const fetcher = options.fetch;
    this.outbox = new Outbox(
      (accountId) => this.timeOf(accountId),
      this.ids,
      () => fetcher ?? ((url, init) => globalThis.fetch(url, init)),
      options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
      new DeliverySlots({ ...DEFAULT_DELIVERY_CONCURRENCY, ...options.webhookConcurrency }),
    );
    this.listeners = new Listeners((accountId) => this.outbox.sendPendingNow(accountId));
    this.outbox.listeners = this.listeners;
    this.autoAdvance = options.autoAdvance ?? true;
    this.pixDirectory = options.strictPixDirectory ? "strict" : "open";
    this.advanceIntervalMs = options.advanceIntervalMs ?? 1000;
    this.maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY;
    this.adminToken = options.adminToken;
    const fixed = options.defaultAccount ?? {};
    this.defaultKeysFixed = Boolean(fixed.publicKey && fixed.secretKey);
    this.defaultWebhookSecretFixed = fixed.webhookSecret !== undefined;
    const keys =
      fixed.publicKey && fixed.secretKey
        ? { publicKey: fixed.publicKey, secretKey: fixed.secretKey }
        : newKeyPair();
    // The default account signs its deliveries from the first run
    // (docs/decisions/mock-server-starting.md): a random secret unless fixed
    // (`--webhook-secret`), kept across resets like its keys.
    const webhookSecret = fixed.webhookSecret ?? newWebhookSecret();
    this.#defaultParams = { ...DEFAULT_ACCOUNT, ...fixed, ...keys, webhookSecret };
    this.#extraKeys = options.pixKeys ?? [];
    this.#defaultAccountId = `acct_${this.ids.next(this.clock.now())}`;
    this.#start();
  }

  #start(): void {
    for (const key of this.#extraKeys) this.directory.register(key);
    this.defaultAccount = this.createAccount(this.#defaultParams, this.#defaultAccountId);
  }

  /** Back to the start state: only the default account (same keys), seed directory, real clock. */
  reset(): void {
    this.clearForRestore();
    this.faults.clear();
    this.rateLimiter.set(null);
    this.clock.reset();
    this.boletoSeq = 0;
    this.#pageTokens.clear();
    this.changes?.everything();
    this.#start();
  }

  /**
   * Empties the state for a durable store's saved one (`adoptAccount` and the record indexes fill it
   * again): no account, no record, no delivery, no scheduled work, the seed directory.
   */
  clearForRestore(): void {
    this.generation += 1;
    for (const timer of this.#advanceTimers) clearTimeout(timer);
    this.#advanceTimers.clear();
    for (const time of this.#times.values()) time.scheduler.stop();
    this.#times.clear();
    this.outbox.clear();
    this.accounts.clear();
    this.accountsByPublicKey.clear();
    this.authenticator.clear();
    this.payins.clear();
    this.payinsByThreeDSTransaction.clear();
    this.directory.reset();
  }

  /** Takes in a saved account with its clock's offset (records are added by the caller). */
  adoptAccount(account: Account, clockOffsetMs: number): AccountTime {
    this.accounts.set(account.id, account);
    this.accountsByPublicKey.set(account.publicKey, account);
    const time = new AccountTime(this.clock, this.expireOnClock);
    time.offsetMs = clockOffsetMs;
    this.#times.set(account.id, time);
    return time;
  }

  /** Makes `account` the default one, kept (id and keys) across resets from now on. */
  useDefaultAccount(account: Account): void {
    this.defaultAccount = account;
    this.#defaultAccountId = account.id;
    this.#defaultParams.publicKey = account.publicKey;
    this.#defaultParams.secretKey = account.secretKey;
    if (account.webhookSecret !== null) this.#defaultParams.webhookSecret = account.webhookSecret;
  }

  /** The keys the default account is created with (fixed by `--default-keys`, or random at start). */
  get defaultAccountParams(): Readonly<CreateAccountParams> {
    return this.#defaultParams;
  }

  /** An account's clock offset from the sandbox clock, in ms (0 for an unknown account). */
  clockOffsetOf(accountId: string): number {
    return this.#times.get(accountId)?.offsetMs ?? 0;
  }

  /** The sandbox as a durable store saves it. */
  savedSandbox(): SavedSandbox {
    return {
      clockOffsetMs: this.clock.offsetMs,
      boletoSeq: this.boletoSeq,
      defaultAccountId: this.#defaultAccountId,
      pixKeys: this.directory.registered(),
    };
  }

  /**
   * One account back to its creation (`POST /_mock/accounts/{id}/reset`): its payins, payouts,
   * deliveries and faults gone, its settings and opening balance as created; its id, API keys and
   * webhook signing secrets kept, so the team's clients and receivers keep working. Work scheduled for
   * its old records finds them gone and does nothing.
   */
  resetAccount(accountId: string): Account {
    const old = this.account(accountId);
    const fresh = new Account(old.id, old.publicKey, old.secretKey, old.created);
    fresh.webhookSecret = old.webhookSecret;
    fresh.previousWebhookSecret = old.previousWebhookSecret;
    fresh.previousSecretUntil = old.previousSecretUntil;
    fresh.lastUsedAt = old.lastUsedAt;
    this.#forgetRecords(old);
    this.accounts.set(fresh.id, fresh);
    this.accountsByPublicKey.set(fresh.publicKey, fresh);
    // credentials already checked point at the old object
    this.authenticator.clear();
    if (this.defaultAccount === old) this.defaultAccount = fresh;
    this.changes?.accountReset(accountId);
    this.outbox.forget(accountId);
    this.faults.clear(accountId);
    this.directory.forget(accountId);
    // its scheduled work (expiries, reserve releases, retries of the old records) goes with it, and
    // its clock is the sandbox clock again
    this.#times.get(accountId)?.scheduler.stop();
    this.#times.set(accountId, new AccountTime(this.clock, this.expireOnClock));
    return fresh;
  }

  /** Drops an account's payins from the sandbox-wide indexes (its reset or removal). */
  #forgetRecords(account: Account): void {
    for (const payin of account.payins) {
      if (this.payins.get(payin.id) === payin) this.payins.delete(payin.id);
      if (payin.threeDS) this.payinsByThreeDSTransaction.delete(payin.threeDS.transactionId);
      this.#pageTokens.delete(payin.id);
    }
  }

  /**
   * Removes an account with everything it holds (retention): its keys stop working at once, its
   * scheduled work and webhook retries stop, and a durable store deletes its rows in batches. The
   * default account is never removed; answers whether the account was.
   */
  removeAccount(accountId: string): boolean {
    const account = this.accounts.get(accountId);
    if (account === undefined || account === this.defaultAccount) return false;
    this.#forgetRecords(account);
    this.accounts.delete(accountId);
    this.accountsByPublicKey.delete(account.publicKey);
    this.authenticator.clear();
    this.outbox.forget(accountId);
    this.listeners.forget(accountId);
    this.faults.clear(accountId);
    this.directory.forget(accountId);
    this.#times.get(accountId)?.scheduler.stop();
    this.#times.delete(accountId);
    this.changes?.accountRemoved(accountId);
    return true;
  }

  /**
   * Takes accounts out of memory without changing them (a store that loads accounts on use keeps its
   * memory bounded): their records, deliveries and schedule go, the store keeps them, and the next
   * request that needs one reads it back. Their PIX keys and the bank page's tokens stay: the
   * directory is saved with the sandbox, and a shopper's open page must still post back. The default
   * account stays, unless `evenDefault` (a shared store reads it again: the caller then makes the copy
   * read the default one). Answers the accounts taken out.
   */
  unloadAccounts(accountIds: Iterable<string>, options: { evenDefault?: boolean } = {}): string[] {
    const unloaded: string[] = [];
    for (const accountId of accountIds) {
      const account = this.accounts.get(accountId);
      if (account === undefined || (account === this.defaultAccount && !options.evenDefault)) continue;
      for (const payin of account.payins) {
        if (this.payins.get(payin.id) === payin) this.payins.delete(payin.id);
        if (payin.threeDS) this.payinsByThreeDSTransaction.delete(payin.threeDS.transactionId);
      }
      this.accounts.delete(accountId);
      this.accountsByPublicKey.delete(account.publicKey);
      this.#times.get(accountId)?.scheduler.stop();
      this.#times.delete(accountId);
      unloaded.push(accountId);
    }
    if (unloaded.length === 0) return unloaded;
    // credentials already checked point at the objects gone
    this.authenticator.clear();
    const gone = new Set(unloaded);
    this.outbox.forgetAccounts(gone);
    return unloaded;
  }

  /**
   * Stamps an account's last use (a merchant request or a control call about it), at most once a
   * minute each: a durable store writes the stamp with the next save, on its own clock.
   */
  touch(accountId: string): void {
    const account = this.accounts.get(accountId);
    if (account === undefined) return;
    const now = this.realNow();
    if (now - account.lastUsedAt < this.#touchEveryMs) return;
    account.lastUsedAt = now;
    this.changes?.used(accountId);
  }

  /**
   * Whether this process saw the account used within `retentionMs` (a stamp a store may not hold
   * yet); a store's sweep keeps such an account whatever its own clock says.
   */
  usedWithin(accountId: string, retentionMs: number): boolean {
    const account = this.accounts.get(accountId);
    return account !== undefined && this.realNow() - account.lastUsedAt < retentionMs;
  }

  /** The accounts, default one aside, that no request used for `retentionMs` (memory mode's sweep). */
  unusedAccounts(retentionMs: number): string[] {
    const ids: string[] = [];
    for (const account of this.accounts.values())
      if (account !== this.defaultAccount && !this.usedWithin(account.id, retentionMs)) ids.push(account.id);
    return ids;
  }

  /** Whether `account` is still the live account of its id (not replaced by a reset). */
  isLive(account: Account): boolean {
    return this.accounts.get(account.id) === account;
  }

  /** Stops every timer for good. */
  close(): void {
    this.#closed = true;
    this.generation += 1;
    for (const timer of this.#advanceTimers) clearTimeout(timer);
    this.#advanceTimers.clear();
    for (const time of this.#times.values()) time.scheduler.stop();
    this.listeners.close();
    this.outbox.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Opens an account and answers its key pair. */
  createAccount(params: CreateAccountParams, id = `acct_${this.ids.next(this.clock.now())}`): Account {
    const keys =
      params.publicKey && params.secretKey
        ? { publicKey: params.publicKey, secretKey: params.secretKey }
        : newKeyPair();
    if (this.accountsByPublicKey.has(keys.publicKey)) {
      throw new ApiError("INVALID_DATA", "publicKey is already used by another account", {
        details: [{ path: "publicKey", message: "is already used by another account" }],
      });
    }
    const account = new Account(id, keys.publicKey, keys.secretKey, params);
    account.lastUsedAt = this.realNow();
    this.accounts.set(account.id, account);
    this.accountsByPublicKey.set(account.publicKey, account);
    this.#times.set(account.id, new AccountTime(this.clock, this.expireOnClock));
    this.changes?.account(account.id);
    return account;
  }

  /**
   * An account's clock and schedule. An id without an account (a record whose account was reset
   * away) gets a detached one, so late work on it schedules nothing that runs.
   */
  timeOf(accountId: string): AccountTime {
    return this.#times.get(accountId) ?? new AccountTime(this.clock, () => {});
  }

  /** The time on an account's clock, in epoch ms. */
  nowOf(accountId: string): number {
    return this.#times.get(accountId)?.now() ?? this.clock.now();
  }

  /** Runs the work due on one account's clock, or on every account's. */
  runDue(accountId?: string): void {
    if (accountId !== undefined) {
      this.#times.get(accountId)?.scheduler.runDue();
      return;
    }
    for (const time of this.#times.values()) time.scheduler.runDue();
  }

  /** Re-arms every account's timer (the sandbox clock moved). */
  armAll(): void {
    for (const time of this.#times.values()) time.scheduler.arm();
  }

  /** The account by id, or 404 NOT_FOUND. */
  account(accountId: string): Account {
    const account = this.accounts.get(accountId);
    if (!account) throw new ApiError("NOT_FOUND", `account ${accountId} does not exist`);
    return account;
  }

  /** The key pair of an account. */
  keysOf(account: Account): AccountKeys {
    const keys: AccountKeys = {
      accountId: account.id,
      publicKey: account.publicKey,
      secretKey: account.secretKey,
    };
    if (account.webhookSecret !== null) keys.webhookSecret = account.webhookSecret;
    return keys;
  }

  /** Applies the retention limit to an account after a record was added. */
  retain(account: Account): void {
    if (account.payins.length <= this.maxRecords && account.payouts.length <= this.maxRecords) return;
    const dropped = account.retain(this.maxRecords);
    const gone = new Set<string>();
    for (const payin of dropped.payins) {
      this.payins.delete(payin.id);
      if (payin.threeDS) this.payinsByThreeDSTransaction.delete(payin.threeDS.transactionId);
      this.#pageTokens.delete(payin.id);
      this.changes?.payin(payin);
      gone.add(payin.id);
    }
    for (const payout of dropped.payouts) {
      this.changes?.payout(payout);
      gone.add(payout.id);
    }
    // their deliveries go with them, from memory and from the store: the limit bounds both
    this.outbox.forgetResources(gone);
  }

  /** The token of a payin's bank authorization page, made on first use. */
  pageToken(payinId: string): string {
    let token = this.#pageTokens.get(payinId);
    if (token === undefined) {
      token = randomString(32);
      this.#pageTokens.set(payinId, token);
    }
    return token;
  }

  /** How the PIX key directory answers an account's payouts. */
  pixDirectoryOf(account: Account): PixDirectoryMode {
    return account.pixDirectory ?? this.pixDirectory;
  }

  /** Whether an account's payouts move on their own. */
  autoAdvanceOf(account: Account): boolean {
    return account.autoAdvance ?? this.autoAdvance;
  }

  /** Runs `step` after the advance interval of real time, unless the state was reset or closed meanwhile. */
  afterInterval(step: () => void): void {
    if (this.#closed) return;
    const generation = this.generation;
    const timer = setTimeout(() => {
      this.#advanceTimers.delete(timer);
      if (generation === this.generation) step();
    }, this.advanceIntervalMs);
    unrefTimer(timer);
    this.#advanceTimers.add(timer);
  }

  /**
   * Sends the webhook of a payin's or payout's new status, when it has a `webhookUrl`, in the trace
   * of the request that created it.
   */
  notify(payin: PayinRecord, status: KnownPayinStatus): void;
  notify(payout: PayoutRecord, status: KnownPayoutStatus): void;
  notify(record: PayinRecord | PayoutRecord, status: KnownPayinStatus | KnownPayoutStatus): void {
    if (!record.webhookUrl) return;
    const isPayin = record instanceof PayinRecord;
    const account = this.accounts.get(record.accountId);
    this.outbox.enqueue({
      accountId: record.accountId,
      resource: isPayin ? "payin" : "payout",
      resourceId: record.id,
      status,
      url: record.webhookUrl,
      body: isPayin ? payinWebhookJson(record) : payoutJson(record),
      secrets: this.signingSecretsOf(record.accountId),
      trace: this.traces.get(record) ?? null,
      duplicate: account?.webhookDuplicates ?? false,
      outOfOrder: account?.webhookOutOfOrder ?? false,
    });
  }

  /**
   * The account's signing secrets at each attempt's time, read anew for every attempt: a retry after a
   * rotation is signed with the new secret (and the old one during its grace), like a real sender.
   */
  signingSecretsOf(accountId: string): () => readonly string[] {
    return () => this.accounts.get(accountId)?.signingSecrets(this.nowOf(accountId)) ?? [];
  }
}
