import { type Payin, type Payout, validate } from "@paykit/contract";
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
import type { ListenParams, ListenResult } from "./listeners.js";
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
import type { DeliveryFilter, WebhookDelivery } from "./outbox.js";
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

/** An account's `paykit-mock listen` (`GET /_mock/accounts/{id}/listener`). */
export interface ListenerView {
  /** A listener takes the account's deliveries now: they go to it rather than to their `webhookUrl`. */
  attached: boolean;
  /** The events it takes (`payin.approved`, `payout.*`); null for every event, or when none is attached. */
  events: string[] | null;
}

/** An account's webhook signing secret (`GET /_mock/accounts/{id}/webhook-secret`). */
export interface WebhookSecretView {
  /** The secret deliveries are signed with (`whsec_…`); null for an account whose deliveries are unsigned. */
  webhookSecret: string | null;
  /** Until when (ISO 8601, the account's clock) the previous secret signs too; null when it no longer does. */
  previousSecretExpiresAt: string | null;
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
 * `MockControl` and the `/_mock` routes (control/table.ts). Errors are thrown as the service's `ApiError`.
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
  webhooks(options: ControlListOptions & DeliveryFilter = {}): ListPage<WebhookDelivery> {
    const { place } = this.#listed("webhooks", options);
    const { resourceId, status, state, order } = options;
    return this.state.outbox.page(options.accountId, place, { resourceId, status, state, order });
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
  /** An account's current webhook signing secret (for a receiver's `.env`), and its previous one's end. */
  webhookSecret(accountId: string): WebhookSecretView {
    const account = this.state.account(accountId);
    const now = this.state.nowOf(accountId);
    const previous = account.previousWebhookSecret !== null && now < account.previousSecretUntil;
    return {
      webhookSecret: account.webhookSecret,
      previousSecretExpiresAt: previous ? new Date(account.previousSecretUntil).toISOString() : null,
    };
  }
  /** Whether a `paykit-mock listen` takes the account's deliveries now, and which events (null: all). */
  listener(accountId: string): ListenerView {
    this.state.account(accountId);
    const found = this.state.listeners.attached(accountId);
    return { attached: found !== null, events: found?.events == null ? null : [...found.events] };
  }
  /** One poll of `paykit-mock listen` on an account (see domain/listeners.ts). */
  listen(accountId: string, params: ListenParams): Promise<ListenResult> {
    this.state.account(accountId); // NOT_FOUND when unknown
    return this.state.listeners.poll(accountId, params);
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
