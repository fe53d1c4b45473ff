import { type ErrorDetail, type Payin, type Payout, validate } from "@paykit/contract";
import type * as z from "zod/mini";
import {
  type Account,
  type AccountKeys,
  type AccountView,
  accountView,
  type CreateAccountParams,
  type RotatedWebhookSecret,
  type UpdateAccountParams,
  WEBHOOK_SECRET_GRACE_MS,
} from "./accounts.js";
import { CLOCK_MAX_MS, clockTimeOf } from "./clock.js";
import {
  ClockBody,
  CreateAccountBody,
  FaultBody,
  ListQuery,
  PixKeyBody,
  RateLimitBody,
  RotateWebhookSecretBody,
  UpdateAccountBody,
} from "./control-params.js";
import { ApiError, invalidData } from "./errors.js";
import type { Fault, FaultParams, RateLimitParams } from "./faults.js";
import {
  CONTROL_LIST_LIMIT,
  type ControlListName,
  decodeCursor,
  type ListOptions,
  type ListPage,
  listPayinViews,
  listPayoutViews,
  type PagePlace,
  type PayinView,
  type PayoutView,
  pageOf,
} from "./lists.js";
import type { WebhookDelivery } from "./outbox.js";
import {
  authorizePayin,
  completeThreeDS,
  expirePayin,
  payinOf,
  payPayin,
  type ThreeDSOutcome,
} from "./payins.js";
import { payoutControl } from "./payouts.js";
import type { PixKeyEntry, RegisterPixKeyParams } from "./pix-directory.js";
import { type PayinRecord, type PayoutRecord, payinJson, payoutJson } from "./records.js";
import type { MockState } from "./state.js";

/** The mock's clock as `GET /_mock/clock` answers it. */
export interface ClockView {
  /** ISO 8601 mock time. */
  now: string;
}

/** How to move the mock clock: to a moment, or forward by some milliseconds. */
export interface SetClockParams {
  /** The new mock time (ISO 8601 string, Date or epoch ms); it keeps moving with real time. */
  now?: string | Date | number;
  /** Move forward by this many ms (after `now`, when both are given). */
  advanceMs?: number;
}

/**
 * Options of a control call that moves a payin or payout. `awaitWebhooks: true` resolves the call only
 * once the webhook deliveries it caused have been attempted (the account's `flushWebhooks`): a test
 * that pays a payin can then assert on what its receiver got, without polling. HTTP:
 * `?awaitWebhooks=true`.
 */
export interface ControlCallOptions {
  /**
   * Wait for the account's deliveries in flight (this call's among them) to be answered, and for held
   * out-of-order events to be sent; a retry due later is not waited for (move the clock, then flush).
   * @default false
   */
  awaitWebhooks?: boolean;
}

/** Which page of a control list to read, and (`accountId`) of which account. */
export interface ControlListOptions extends ListOptions {
  /** One account's entries (404 when unknown); all accounts' without it. */
  accountId?: string | undefined;
}

/** The entry type of each control list. */
export interface ControlListEntry {
  accounts: AccountView;
  payins: PayinView;
  payouts: PayoutView;
  webhooks: WebhookDelivery;
  pixKeys: PixKeyEntry;
}

/**
 * Every entry of a paged list, one page fetched at a time as the caller iterates: each page starts
 * after the previous page's last entry, so records created meanwhile shift nothing.
 */
export async function* eachEntry<T>(
  fetchPage: (options: ControlListOptions) => Promise<ListPage<T>>,
  options: ControlListOptions = {},
): AsyncGenerator<T, void, undefined> {
  let cursor = options.cursor;
  for (;;) {
    const page = await fetchPage({ ...options, cursor });
    for (const entry of page.data) yield entry;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}

/**
 * The control API of the mock as typed methods (docs/decisions.md ("The mock server: control API")).
 * Two implementations share it: direct calls on an in-process engine, and HTTP calls to `/_mock/*` of a
 * running mock.
 * Every failure rejects with a {@link MockControlError} carrying the service's error body.
 */
export interface MockControl {
  /** Opens an account (`POST /_mock/accounts`) and answers its key pair. */
  createAccount(params?: CreateAccountParams): Promise<AccountKeys>;
  /** An account's settings and balance (`GET /_mock/accounts/{id}`). */
  getAccount(accountId: string): Promise<AccountView>;
  /**
   * The accounts with their settings and balances (`GET /_mock/accounts?limit=&cursor=`), oldest first:
   * one page, at most `limit` (default 100, at most 1000); {@link MockControl.listAll} reads them all.
   */
  accounts(options?: ListOptions): Promise<AccountView[]>;
  /**
   * The newest payins (`GET /_mock/payins?accountId=&limit=&cursor=`), of one account or of all, each
   * with its account and status history: one page, at most `limit` (default 100, at most 1000).
   */
  payins(accountId?: string, options?: ListOptions): Promise<PayinView[]>;
  /**
   * The newest payouts (`GET /_mock/payouts?accountId=&limit=&cursor=`), of one account or of all, each
   * with its account and status history: one page, at most `limit` (default 100, at most 1000).
   */
  payouts(accountId?: string, options?: ListOptions): Promise<PayoutView[]>;
  /**
   * One page of a control list with the cursor of the next (`{ data, nextCursor }`, as the HTTP lists
   * answer): `nextCursor` is null on the last page.
   *
   * @example
   * const first = await mock.control.listPage("payins", { accountId, limit: 50 });
   * const second = await mock.control.listPage("payins", { accountId, limit: 50, cursor: first.nextCursor! });
   */
  listPage<L extends ControlListName>(
    list: L,
    options?: ControlListOptions,
  ): Promise<ListPage<ControlListEntry[L]>>;
  /**
   * Every entry of a control list, in its order, fetched one page at a time as the caller iterates
   * (one page in memory); records created meanwhile do not shift the pages still to come.
   *
   * @example
   * for await (const payin of mock.control.listAll("payins", { accountId })) console.log(payin.status);
   */
  listAll<L extends ControlListName>(
    list: L,
    options?: ControlListOptions,
  ): AsyncGenerator<ControlListEntry[L], void, undefined>;
  /** Changes an account's settings (`POST /_mock/accounts/{id}/settings`). */
  updateAccount(accountId: string, params: UpdateAccountParams): Promise<AccountView>;
  /**
   * Rotates an account's webhook secret (`POST /_mock/accounts/{id}/webhook-secret`): every later
   * delivery, retries of earlier events included, is signed with the new secret, and during the grace
   * period (default 24 h of mock time) with the previous one too.
   */
  rotateWebhookSecret(accountId: string, params?: { gracePeriodMs?: number }): Promise<RotatedWebhookSecret>;
  /**
   * One account back to how it was created (`POST /_mock/accounts/{id}/reset`): its payins, payouts,
   * deliveries and faults gone, settings and opening balance as created; its id, API keys and webhook
   * secret kept. Other accounts are untouched: parallel runs sharing a mock each reset their own.
   */
  resetAccount(accountId: string): Promise<AccountView>;
  /** The customer pays a PIX or BOLETO payin: PENDING → APPROVED, with its webhook. */
  payPayin(payinId: string, options?: ControlCallOptions): Promise<Payin>;
  /** The customer's open finance decision: APPROVED or REFUSED. */
  authorizePayin(payinId: string, approve: boolean, options?: ControlCallOptions): Promise<Payin>;
  /** A pending payin expires now. */
  expirePayin(payinId: string, options?: ControlCallOptions): Promise<Payin>;
  /** Completes a card payin's 3DS challenge without a browser (tests of the server side). */
  completeThreeDS(payinId: string, outcome: ThreeDSOutcome, options?: ControlCallOptions): Promise<Payin>;
  /** The dashboard approves a payout awaiting approval. */
  approvePayout(payoutId: string, options?: ControlCallOptions): Promise<Payout>;
  /** The dashboard rejects a payout awaiting approval: CANCELED, amount returned. */
  rejectPayout(payoutId: string, options?: ControlCallOptions): Promise<Payout>;
  /** One processing step: PENDING/APPROVED → PROCESSING → COMPLETED (or the magic keys' outcome). */
  advancePayout(payoutId: string, options?: ControlCallOptions): Promise<Payout>;
  /** The bank rejects a PROCESSING payout: FAILED (default) or REFUSED, amount returned. */
  failPayout(payoutId: string, status?: "FAILED" | "REFUSED", options?: ControlCallOptions): Promise<Payout>;
  /** The receiving bank returns a COMPLETED payout: REFUNDED, amount returned. */
  refundPayout(payoutId: string, options?: ControlCallOptions): Promise<Payout>;
  /** The mock clock. */
  clock(): Promise<ClockView>;
  /** An account's own test clock: the sandbox clock plus the account's offset. */
  accountClock(accountId: string): Promise<ClockView>;
  /**
   * Sets or advances one account's clock (`POST /_mock/accounts/{id}/clock`, the shapes of
   * `/_mock/clock`): its expiries, reserve releases and webhook retries run on it; other accounts' do not move.
   */
  setAccountClock(accountId: string, params: SetClockParams): Promise<ClockView>;
  /** Sets or advances the mock clock; due expiries, reserve releases and retries run at once. */
  setClock(params: SetClockParams): Promise<ClockView>;
  /**
   * The webhook delivery log (`GET /_mock/webhooks?accountId=&limit=&cursor=`), oldest first, of one
   * account or of all: one page, at most `limit` (default 100, at most 1000).
   */
  webhooks(accountId?: string, options?: ListOptions): Promise<WebhookDelivery[]>;
  /**
   * Runs every retry due on the mock clock (and every held out-of-order event) now, of one account or
   * of all (`POST /_mock/webhooks/flush?accountId=`); resolves with the deliveries attempted once they
   * settled.
   */
  flushWebhooks(accountId?: string): Promise<WebhookDelivery[]>;
  /** Sends a delivery again now (a fresh cycle of 8 attempts). */
  redeliverWebhook(deliveryId: string): Promise<WebhookDelivery>;
  /** Injects a fault into the next matching requests. */
  addFault(fault: FaultParams): Promise<Fault>;
  /** The faults still armed; with `accountId`, those naming that account. */
  faults(accountId?: string): Promise<Fault[]>;
  /** Removes every fault; with `accountId`, only those naming that account. */
  clearFaults(accountId?: string): Promise<void>;
  /** Switches the rate limit on (429 RATE_LIMITED with Retry-After) or off (`null`). */
  setRateLimit(params: RateLimitParams | null): Promise<void>;
  /** Registers a key in the PIX key directory, for every account or (`accountId`) for one alone. */
  registerPixKey(params: RegisterPixKeyParams): Promise<PixKeyEntry>;
  /**
   * The keys of the PIX key directory every account finds, then (`accountId`) that account's own, each
   * part in key order (`GET /_mock/pix-keys?accountId=&limit=&cursor=`): one page, at most `limit`.
   */
  pixKeys(accountId?: string, options?: ListOptions): Promise<PixKeyEntry[]>;
  /** Back to the start state: the default account only (same keys), seed directory, real clock. */
  reset(): Promise<void>;
}

/** A control call the mock refused: the status and error body it answered. */
export class MockControlError extends Error {
  override readonly name = "MockControlError";
  /** HTTP status of the refusal. */
  readonly status: number;
  /** The error code (`NOT_FOUND`, `INVALID_DATA`, …). */
  readonly code: string;
  /** Failing fields, when any. */
  readonly details: ErrorDetail[] | undefined;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Checks a control call's input against its schema; `INVALID_DATA` with details otherwise. */
function checked<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  const result = validate(schema, input ?? {});
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  return result.data;
}

// A Date or epoch ms as ISO text; anything else is left for ClockBody to refuse (a JSON body may send
// any value: converting an object to text could throw).
function isoOf(value: unknown): unknown {
  if (!(value instanceof Date) && typeof value !== "number") return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

/**
 * The control operations on an engine's state: the one implementation behind both the direct
 * {@link MockControl} and the `/_mock` routes. Errors are thrown as the service's `ApiError`.
 */
export class ControlOperations {
  constructor(private readonly state: MockState) {}

  createAccount(params: CreateAccountParams = {}): AccountKeys {
    return this.state.keysOf(this.state.createAccount(checked(CreateAccountBody, params)));
  }
  getAccount(accountId: string): AccountView {
    return accountView(this.state.account(accountId), this.state.autoAdvance, this.state.pixDirectory);
  }
  /** Accounts oldest first (id order: ids are ULIDs on the sandbox clock); `accountId` narrows to one. */
  accounts(options: ControlListOptions = {}): ListPage<AccountView> {
    const { accounts, place } = this.#listed("accounts", options);
    // Sorted per call: the cost follows the number of accounts, never their records.
    const sorted = accounts.length > 1 ? [...accounts].sort((a, b) => (a.id < b.id ? -1 : 1)) : accounts;
    const page = pageOf("accounts", [sorted], (account) => account.id, "oldest", place);
    return {
      data: page.data.map((account) => accountView(account, this.state.autoAdvance, this.state.pixDirectory)),
      nextCursor: page.nextCursor,
    };
  }
  payins(options: ControlListOptions = {}): ListPage<PayinView> {
    const { accounts, place } = this.#listed("payins", options);
    return listPayinViews(accounts, place);
  }
  payouts(options: ControlListOptions = {}): ListPage<PayoutView> {
    const { accounts, place } = this.#listed("payouts", options);
    return listPayoutViews(accounts, place);
  }
  webhooks(options: ControlListOptions = {}): ListPage<WebhookDelivery> {
    const { place } = this.#listed("webhooks", options);
    return this.state.outbox.page(options.accountId, place);
  }
  /**
   * The directory's shared keys, then the account's own, each part in `TYPE:key` order: a key may be
   * in both parts (an account's own entry overrides the shared one), so the part is in the cursor.
   */
  pixKeys(options: ControlListOptions = {}): ListPage<PixKeyEntry> {
    const { place } = this.#listed("pixKeys", options);
    const keyed = (part: string, entries: readonly PixKeyEntry[]) =>
      entries
        .map((entry) => ({ entry, key: `${part}:${entry.type}:${entry.key}` }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const shared = keyed("0", this.state.directory.list());
    const own =
      options.accountId === undefined
        ? []
        : keyed("1", this.state.directory.list(options.accountId).slice(shared.length));
    const page = pageOf("pixKeys", [[...shared, ...own]], (item) => item.key, "oldest", place);
    return { data: page.data.map((item) => item.entry), nextCursor: page.nextCursor };
  }
  /** One page of any control list (the dispatcher of `listPage`). */
  list<L extends ControlListName>(list: L, options: ControlListOptions = {}): ListPage<ControlListEntry[L]> {
    const pages: { [K in ControlListName]: (o: ControlListOptions) => ListPage<ControlListEntry[K]> } = {
      accounts: (o) => this.accounts(o),
      payins: (o) => this.payins(o),
      payouts: (o) => this.payouts(o),
      webhooks: (o) => this.webhooks(o),
      pixKeys: (o) => this.pixKeys(o),
    };
    return pages[list](options);
  }
  // The checked query of a list: its accounts (one, 404 when unknown, or all) and its page's place.
  #listed(list: ControlListName, options: ControlListOptions): { accounts: Account[]; place: PagePlace } {
    const input = checked(ListQuery, {
      accountId: options.accountId,
      limit: options.limit,
      cursor: options.cursor,
    });
    const accounts =
      input.accountId === undefined
        ? [...this.state.accounts.values()]
        : [this.state.account(input.accountId)];
    const after = input.cursor === undefined ? undefined : decodeCursor(list, input.cursor);
    return { accounts, place: { limit: input.limit ?? CONTROL_LIST_LIMIT.default, after } };
  }
  updateAccount(accountId: string, params: UpdateAccountParams): AccountView {
    const account = this.state.account(accountId);
    account.update(checked(UpdateAccountBody, params));
    this.state.changes?.account(accountId);
    return accountView(account, this.state.autoAdvance, this.state.pixDirectory);
  }
  resetAccount(accountId: string): AccountView {
    return accountView(this.state.resetAccount(accountId), this.state.autoAdvance, this.state.pixDirectory);
  }
  rotateWebhookSecret(accountId: string, params: { gracePeriodMs?: number } = {}): RotatedWebhookSecret {
    const account = this.state.account(accountId);
    const input = checked(RotateWebhookSecretBody, params);
    const rotated = account.rotateWebhookSecret(
      this.state.nowOf(accountId),
      input.gracePeriodMs ?? WEBHOOK_SECRET_GRACE_MS,
    );
    this.state.changes?.account(accountId);
    return rotated;
  }
  payPayin(id: string, options?: ControlCallOptions): Payin | Promise<Payin> {
    return this.#payin(payPayin(this.state, id), options);
  }
  authorizePayin(id: string, approve: boolean, options?: ControlCallOptions): Payin | Promise<Payin> {
    return this.#payin(authorizePayin(this.state, id, approve), options);
  }
  expirePayin(id: string, options?: ControlCallOptions): Payin | Promise<Payin> {
    return this.#payin(expirePayin(this.state, id), options);
  }
  completeThreeDS(id: string, outcome: ThreeDSOutcome, options?: ControlCallOptions): Payin | Promise<Payin> {
    const payin = payinOf(this.state, null, id);
    completeThreeDS(this.state, payin, outcome);
    return this.#payin(payin, options);
  }
  approvePayout(id: string, options?: ControlCallOptions): Payout | Promise<Payout> {
    return this.#payout(payoutControl.approve(this.state, id), options);
  }
  rejectPayout(id: string, options?: ControlCallOptions): Payout | Promise<Payout> {
    return this.#payout(payoutControl.reject(this.state, id), options);
  }
  advancePayout(id: string, options?: ControlCallOptions): Payout | Promise<Payout> {
    return this.#payout(payoutControl.advance(this.state, id), options);
  }
  failPayout(
    id: string,
    status?: "FAILED" | "REFUSED",
    options?: ControlCallOptions,
  ): Payout | Promise<Payout> {
    return this.#payout(payoutControl.fail(this.state, id, status), options);
  }
  refundPayout(id: string, options?: ControlCallOptions): Payout | Promise<Payout> {
    return this.#payout(payoutControl.refund(this.state, id), options);
  }
  // The record as the call left it; with awaitWebhooks, answered once its account's deliveries settled.
  #payin(payin: PayinRecord, options: ControlCallOptions | undefined): Payin | Promise<Payin> {
    return this.#afterDeliveries(payin.accountId, payinJson(payin), options);
  }
  #payout(payout: PayoutRecord, options: ControlCallOptions | undefined): Payout | Promise<Payout> {
    return this.#afterDeliveries(payout.accountId, payoutJson(payout), options);
  }
  #afterDeliveries<T>(accountId: string, result: T, options: ControlCallOptions | undefined): T | Promise<T> {
    if (!options?.awaitWebhooks) return result;
    return this.state.outbox.flush(accountId).then(() => result);
  }
  clock(): ClockView {
    return { now: new Date(this.state.clock.now()).toISOString() };
  }
  setClock(params: SetClockParams): ClockView {
    const input = checked(ClockBody, {
      ...params,
      now: params.now === undefined ? undefined : isoOf(params.now),
    });
    const target =
      (input.now === undefined ? this.state.clock.now() : clockTimeOf(input.now)) + (input.advanceMs ?? 0);
    // Beyond 9999 the ISO times of records, webhooks and this answer could not be written.
    if (target > CLOCK_MAX_MS)
      throw invalidData("advanceMs", `would move the clock past ${new Date(CLOCK_MAX_MS).toISOString()}`);
    if (input.now !== undefined) this.state.clock.set(clockTimeOf(input.now));
    if (input.advanceMs !== undefined) this.state.clock.advance(input.advanceMs);
    this.state.changes?.sandbox();
    // every account's clock moved with the sandbox's
    this.state.runDue();
    this.state.armAll();
    return this.clock();
  }
  accountClock(accountId: string): ClockView {
    this.state.account(accountId);
    return { now: new Date(this.state.nowOf(accountId)).toISOString() };
  }
  setAccountClock(accountId: string, params: SetClockParams): ClockView {
    this.state.account(accountId);
    const time = this.state.timeOf(accountId);
    const input = checked(ClockBody, {
      ...params,
      now: params.now === undefined ? undefined : isoOf(params.now),
    });
    const target = (input.now === undefined ? time.now() : clockTimeOf(input.now)) + (input.advanceMs ?? 0);
    if (target > CLOCK_MAX_MS)
      throw invalidData("advanceMs", `would move the clock past ${new Date(CLOCK_MAX_MS).toISOString()}`);
    time.set(target);
    this.state.changes?.account(accountId);
    time.scheduler.runDue();
    time.scheduler.arm();
    return this.accountClock(accountId);
  }
  flushWebhooks(accountId?: string): Promise<WebhookDelivery[]> {
    if (accountId !== undefined) this.state.account(accountId);
    return this.state.outbox.flush(accountId);
  }
  redeliverWebhook(id: string): Promise<WebhookDelivery> {
    return this.state.outbox.redeliver(id);
  }
  addFault(fault: FaultParams): Fault {
    const params = checked(FaultBody, fault);
    if (params.accountId !== undefined) this.state.account(params.accountId); // NOT_FOUND when unknown
    return this.state.faults.add(params);
  }
  faults(accountId?: string): Fault[] {
    return this.state.faults.list(accountId);
  }
  clearFaults(accountId?: string): void {
    this.state.faults.clear(accountId);
  }
  setRateLimit(params: RateLimitParams | null): void {
    if (params === null) this.state.rateLimiter.set(null);
    else {
      const input = checked(RateLimitBody, params);
      this.state.rateLimiter.set(
        input.limit === null ? null : { limit: input.limit, windowMs: input.windowMs },
      );
    }
  }
  rateLimit(): RateLimitParams | null {
    return this.state.rateLimiter.get();
  }
  registerPixKey(params: RegisterPixKeyParams): PixKeyEntry {
    const input = checked(PixKeyBody, params);
    if (input.accountId !== undefined) this.state.account(input.accountId);
    const entry = this.state.directory.register(input);
    this.state.changes?.sandbox();
    return entry;
  }
  reset(): void {
    this.state.reset();
  }
}

/** Runs an operation and turns its `ApiError` into a rejected {@link MockControlError}. */
async function callOp<T>(operation: () => T | Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError)
      throw new MockControlError(error.status, error.code, error.message, error.details);
    throw error;
  }
}

/** The {@link MockControl} of an in-process engine: direct calls, no HTTP. */
export function directControl(ops: ControlOperations, saved?: () => Promise<void>): MockControl {
  // With a durable store, a direct call resolves once its changes are saved, like an HTTP call (and
  // rejects with the store's 503 when they are not).
  const call =
    saved === undefined
      ? callOp
      : <T>(op: () => T | Promise<T>) =>
          callOp(async () => {
            const r = await op();
            await saved();
            return r;
          });
  return {
    createAccount: (params) => call(() => ops.createAccount(params)),
    getAccount: (id) => call(() => ops.getAccount(id)),
    accounts: async (options) => (await call(() => ops.accounts(options))).data,
    payins: async (accountId, options) => (await call(() => ops.payins({ ...options, accountId }))).data,
    payouts: async (accountId, options) => (await call(() => ops.payouts({ ...options, accountId }))).data,
    listPage: (list, options) => call(() => ops.list(list, options)),
    listAll: (list, options) => eachEntry((o) => call(() => ops.list(list, o)), options),
    updateAccount: (id, params) => call(() => ops.updateAccount(id, params)),
    rotateWebhookSecret: (id, params) => call(() => ops.rotateWebhookSecret(id, params)),
    resetAccount: (id) => call(() => ops.resetAccount(id)),
    payPayin: (id, options) => call(() => ops.payPayin(id, options)),
    authorizePayin: (id, approve, options) => call(() => ops.authorizePayin(id, approve, options)),
    expirePayin: (id, options) => call(() => ops.expirePayin(id, options)),
    completeThreeDS: (id, outcome, options) => call(() => ops.completeThreeDS(id, outcome, options)),
    approvePayout: (id, options) => call(() => ops.approvePayout(id, options)),
    rejectPayout: (id, options) => call(() => ops.rejectPayout(id, options)),
    advancePayout: (id, options) => call(() => ops.advancePayout(id, options)),
    failPayout: (id, status, options) => call(() => ops.failPayout(id, status, options)),
    refundPayout: (id, options) => call(() => ops.refundPayout(id, options)),
    clock: () => call(() => ops.clock()),
    accountClock: (id) => call(() => ops.accountClock(id)),
    setAccountClock: (id, params) => call(() => ops.setAccountClock(id, params)),
    setClock: (params) => call(() => ops.setClock(params)),
    webhooks: async (accountId, options) => (await call(() => ops.webhooks({ ...options, accountId }))).data,
    flushWebhooks: (accountId) => call(() => ops.flushWebhooks(accountId)),
    redeliverWebhook: (id) => call(() => ops.redeliverWebhook(id)),
    addFault: (fault) => call(() => ops.addFault(fault)),
    faults: (accountId) => call(() => ops.faults(accountId)),
    clearFaults: (accountId) => call(() => ops.clearFaults(accountId)),
    setRateLimit: (params) => call(() => ops.setRateLimit(params)),
    registerPixKey: (params) => call(() => ops.registerPixKey(params)),
    pixKeys: async (accountId, options) => (await call(() => ops.pixKeys({ ...options, accountId }))).data,
    reset: () => call(() => ops.reset()),
  };
}
