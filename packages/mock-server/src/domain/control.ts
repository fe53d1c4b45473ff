import { type Payin, type Payout, validate } from "@paykit/contract";
import type * as z from "zod/mini";
import {
  Account,
  type AccountKeys,
  type AccountView,
  accountView,
  type CreateAccountParams,
  hashSecretKey,
  newKeyPair,
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
import {
  AfterCommit,
  type ClockView,
  type ControlAnswer,
  type ControlCallOptions,
  type ControlContext,
  type ControlListEntry,
  type ControlListOptions,
  type ListenerView,
  type SetClockParams,
  type WebhookSecretView,
} from "./control-types.js";
import { type DeliveryFilter, deliveryView, restartDelivery, type WebhookDelivery } from "./deliveries.js";
import { runDue, settledPayin } from "./due.js";
import { ApiError, invalidData } from "./errors.js";
import type { Fault, FaultParams, RateLimitParams } from "./faults.js";
import type { ListenParams, ListenResult } from "./listeners.js";
import {
  CONTROL_LIST_LIMIT,
  type ControlListName,
  decodeCursor,
  type ListPage,
  type PagePlace,
  type PayinView,
  type PayoutView,
  payinView,
  payoutView,
} from "./lists.js";
import {
  authorizePayin,
  completeThreeDS,
  expirePayin,
  lockedPayin,
  payPayin,
  type ThreeDSOutcome,
} from "./payins.js";
import { payoutControl } from "./payouts.js";
import { type PixKeyEntry, type RegisterPixKeyParams, registeredEntry } from "./pix-directory.js";
import { type PayinRecord, type PayoutRecord, payinJson, payoutJson } from "./records.js";
import type { Turn } from "./turn.js";

export * from "./control-types.js";

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

/** A new account of `params` (checked), with its keys: the secret key is shown now and never again. */
export async function openAccount(
  turn: Turn,
  params: CreateAccountParams,
  id = `acct_${turn.ids.next(turn.sandboxNow())}`,
): Promise<{ account: Account; keys: AccountKeys }> {
  const keys =
    params.publicKey && params.secretKey
      ? { publicKey: params.publicKey, secretKey: params.secretKey }
      : newKeyPair();
  const { publicKey: _pk, secretKey: _sk, ...created } = params;
  const account = new Account(id, keys.publicKey, await hashSecretKey(keys.secretKey), created);
  if ((await turn.tx.accountByPublicKey(keys.publicKey)) !== null) {
    throw new ApiError("INVALID_DATA", "publicKey is already used by another account", {
      details: [{ path: "publicKey", message: "is already used by another account" }],
    });
  }
  turn.tx.insertAccount(account);
  const answer: AccountKeys = { accountId: account.id, ...keys };
  if (account.webhookSecret !== null) answer.webhookSecret = account.webhookSecret;
  return { account, keys: answer };
}

/**
 * The control operations of one turn: the one implementation behind both the direct `MockControl` and
 * the `/_mock` routes (control/table.ts). Errors are thrown as the service's `ApiError`. A call about
 * one account runs that account's due work first, under its lock.
 */
export class ControlOperations {
  constructor(
    private readonly turn: Turn,
    private readonly context: ControlContext,
  ) {}

  get #tx() {
    return this.turn.tx;
  }

  /** The account, locked, with its due work run: what a call about it sees. */
  async #account(accountId: string): Promise<Account> {
    const account = await this.turn.account(accountId);
    await runDue(this.turn, account);
    return account;
  }

  #view(account: Account): AccountView {
    return accountView(account, this.turn.rules.autoAdvance, this.turn.rules.pixDirectory);
  }

  async createAccount(params: CreateAccountParams = {}): Promise<AccountKeys> {
    return (await openAccount(this.turn, checked(CreateAccountBody, params))).keys;
  }
  async getAccount(accountId: string): Promise<AccountView> {
    return this.#view(await this.#account(accountId));
  }
  /** Accounts oldest first (id order: ids are ULIDs on the sandbox clock); `accountId` narrows to one. */
  async accounts(options: ControlListOptions = {}): Promise<ListPage<AccountView>> {
    const { accountId, place } = await this.#listed("accounts", options);
    const page = await this.#tx.accountPage(place, accountId);
    return { data: page.data.map((account) => this.#view(account)), nextCursor: page.nextCursor };
  }
  async payins(options: ControlListOptions = {}): Promise<ListPage<PayinView>> {
    const { accountId, place } = await this.#listed("payins", options);
    const page = await this.#tx.payinPage(accountId, place);
    return { data: page.data.map(payinView), nextCursor: page.nextCursor };
  }
  async payouts(options: ControlListOptions = {}): Promise<ListPage<PayoutView>> {
    const { accountId, place } = await this.#listed("payouts", options);
    const page = await this.#tx.payoutPage(accountId, place);
    return { data: page.data.map(payoutView), nextCursor: page.nextCursor };
  }
  async webhooks(options: ControlListOptions & DeliveryFilter = {}): Promise<ListPage<WebhookDelivery>> {
    const { accountId, place } = await this.#listed("webhooks", options);
    const { resourceId, status, state } = options;
    const page = await this.#tx.deliveryPage(
      { accountId, resourceId, status, state, order: options.order ?? "oldest" },
      place,
    );
    return { data: page.data.map(deliveryView), nextCursor: page.nextCursor };
  }
  /**
   * The directory's shared keys (seeded and registered), then the account's own, each part in
   * `TYPE:key` order: a key may be in both parts (an account's own entry overrides the shared one), so
   * the part is in the cursor.
   */
  async pixKeys(options: ControlListOptions = {}): Promise<ListPage<PixKeyEntry>> {
    const { accountId, place } = await this.#listed("pixKeys", options);
    return this.#tx.pixKeyPage(accountId, place);
  }
  /** One page of any control list (the dispatcher of `listPage`). */
  list<L extends ControlListName>(
    list: L,
    options: ControlListOptions = {},
  ): Promise<ListPage<ControlListEntry[L]>> {
    const pages: {
      [K in ControlListName]: (o: ControlListOptions) => Promise<ListPage<ControlListEntry[K]>>;
    } = {
      accounts: (o) => this.accounts(o),
      payins: (o) => this.payins(o),
      payouts: (o) => this.payouts(o),
      webhooks: (o) => this.webhooks(o),
      pixKeys: (o) => this.pixKeys(o),
    };
    return pages[list](options);
  }
  // The checked query of a list: its account (404 when unknown; its due work run) and its page's place.
  async #listed(
    list: ControlListName,
    options: ControlListOptions,
  ): Promise<{ accountId: string | undefined; place: PagePlace }> {
    const input = checked(ListQuery, {
      accountId: options.accountId,
      limit: options.limit,
      cursor: options.cursor,
    });
    if (input.accountId !== undefined) await this.#account(input.accountId);
    const after = input.cursor === undefined ? undefined : decodeCursor(list, input.cursor);
    return { accountId: input.accountId, place: { limit: input.limit ?? CONTROL_LIST_LIMIT.default, after } };
  }
  async updateAccount(accountId: string, params: UpdateAccountParams): Promise<AccountView> {
    const input = checked(UpdateAccountBody, params);
    const account = await this.#account(accountId);
    account.update(input);
    this.#tx.updateAccount(account);
    return this.#view(account);
  }
  async resetAccount(accountId: string): Promise<AccountView> {
    const account = await this.turn.account(accountId);
    const fresh = account.recreated();
    this.#tx.resetAccount(fresh);
    return this.#view(fresh);
  }
  async rotateWebhookSecret(
    accountId: string,
    params: { gracePeriodMs?: number } = {},
  ): Promise<RotatedWebhookSecret> {
    const input = checked(RotateWebhookSecretBody, params);
    const account = await this.#account(accountId);
    const rotated = account.rotateWebhookSecret(
      this.turn.now(account),
      input.gracePeriodMs ?? WEBHOOK_SECRET_GRACE_MS,
    );
    this.#tx.updateAccount(account);
    return rotated;
  }
  /** An account's current webhook signing secret (for a receiver's `.env`), and its previous one's end. */
  async webhookSecret(accountId: string): Promise<WebhookSecretView> {
    const account = await this.turn.account(accountId, false);
    const now = this.turn.now(account);
    const previous = account.previousWebhookSecret !== null && now < account.previousSecretUntil;
    return {
      webhookSecret: account.webhookSecret,
      previousSecretExpiresAt: previous ? new Date(account.previousSecretUntil).toISOString() : null,
    };
  }
  /**
   * Whether a `paykit-mock listen` takes the account's deliveries now, and which events (null: all):
   * whichever process of a shared sandbox its polls reach.
   */
  async listener(accountId: string): Promise<ListenerView> {
    await this.turn.account(accountId, false); // NOT_FOUND when unknown
    const found = await this.context.work.listenerOf(accountId);
    return { attached: found !== null, events: found?.events ?? null };
  }
  /** One poll of `paykit-mock listen` on an account (see work/listeners.ts): after the turn, never in it. */
  async listen(accountId: string, params: ListenParams): ControlAnswer<ListenResult> {
    await this.turn.account(accountId, false); // NOT_FOUND when unknown
    return new AfterCommit(() => this.context.work.listen(accountId, params));
  }
  async payPayin(id: string, options?: ControlCallOptions): ControlAnswer<Payin> {
    await this.#duePayin(id);
    return this.#payin(await payPayin(this.turn, id), options);
  }
  async authorizePayin(id: string, approve: boolean, options?: ControlCallOptions): ControlAnswer<Payin> {
    await this.#duePayin(id);
    return this.#payin(await authorizePayin(this.turn, id, approve), options);
  }
  async expirePayin(id: string, options?: ControlCallOptions): ControlAnswer<Payin> {
    await this.#duePayin(id);
    return this.#payin(await expirePayin(this.turn, id), options);
  }
  async completeThreeDS(
    id: string,
    outcome: ThreeDSOutcome,
    options?: ControlCallOptions,
  ): ControlAnswer<Payin> {
    await this.#duePayin(id);
    const { account, payin } = await lockedPayin(this.turn, id);
    completeThreeDS(this.turn, account, payin, outcome);
    return this.#payin(payin, options);
  }
  async approvePayout(id: string, options?: ControlCallOptions): ControlAnswer<Payout> {
    await this.#duePayout(id);
    return this.#payout(await payoutControl.approve(this.turn, id), options);
  }
  async rejectPayout(id: string, options?: ControlCallOptions): ControlAnswer<Payout> {
    await this.#duePayout(id);
    return this.#payout(await payoutControl.reject(this.turn, id), options);
  }
  async advancePayout(id: string, options?: ControlCallOptions): ControlAnswer<Payout> {
    await this.#duePayout(id);
    return this.#payout(await payoutControl.advance(this.turn, id), options);
  }
  async failPayout(
    id: string,
    status?: "FAILED" | "REFUSED",
    options?: ControlCallOptions,
  ): ControlAnswer<Payout> {
    await this.#duePayout(id);
    return this.#payout(await payoutControl.fail(this.turn, id, status), options);
  }
  async refundPayout(id: string, options?: ControlCallOptions): ControlAnswer<Payout> {
    await this.#duePayout(id);
    return this.#payout(await payoutControl.refund(this.turn, id), options);
  }
  // The due work of the record's account first (an expiry a moved clock brought), under its lock.
  async #duePayin(id: string): Promise<void> {
    await settledPayin(this.turn, id);
  }
  async #duePayout(id: string): Promise<void> {
    const payout = await this.#tx.payout(id);
    if (payout !== null) await this.#account(payout.accountId);
  }
  // The record as the call left it; with awaitWebhooks, answered once its account's deliveries settled.
  #payin(payin: PayinRecord, options: ControlCallOptions | undefined): Payin | AfterCommit<Payin> {
    return this.#afterDeliveries(payin.accountId, payinJson(payin), options);
  }
  #payout(payout: PayoutRecord, options: ControlCallOptions | undefined): Payout | AfterCommit<Payout> {
    return this.#afterDeliveries(payout.accountId, payoutJson(payout), options);
  }
  #afterDeliveries<T>(
    accountId: string,
    result: T,
    options: ControlCallOptions | undefined,
  ): T | AfterCommit<T> {
    if (!options?.awaitWebhooks) return result;
    return new AfterCommit(() => this.context.work.flush(accountId).then(() => result));
  }
  async clock(): Promise<ClockView> {
    return { now: new Date(this.turn.sandboxNow()).toISOString() };
  }
  async setClock(params: SetClockParams): Promise<ClockView> {
    const input = checked(ClockBody, {
      ...params,
      now: params.now === undefined ? undefined : isoOf(params.now),
    });
    const now = this.turn.sandboxNow();
    const target = (input.now === undefined ? now : clockTimeOf(input.now)) + (input.advanceMs ?? 0);
    // Beyond 9999 the ISO times of records, webhooks and this answer could not be written.
    if (target > CLOCK_MAX_MS)
      throw invalidData("advanceMs", `would move the clock past ${new Date(CLOCK_MAX_MS).toISOString()}`);
    const sandbox = { ...this.#tx.sandbox, clockOffsetMs: this.#tx.sandbox.clockOffsetMs + (target - now) };
    this.#tx.updateSandbox(sandbox);
    // every account's clock moved with the sandbox's: their due work runs as each is next used, and
    // on the worker's next turn
    return { now: new Date(target).toISOString() };
  }
  async accountClock(accountId: string): Promise<ClockView> {
    const account = await this.turn.account(accountId, false);
    return { now: new Date(this.turn.now(account)).toISOString() };
  }
  async setAccountClock(accountId: string, params: SetClockParams): Promise<ClockView> {
    const input = checked(ClockBody, {
      ...params,
      now: params.now === undefined ? undefined : isoOf(params.now),
    });
    const account = await this.turn.account(accountId);
    const now = this.turn.now(account);
    const target = (input.now === undefined ? now : clockTimeOf(input.now)) + (input.advanceMs ?? 0);
    if (target > CLOCK_MAX_MS)
      throw invalidData("advanceMs", `would move the clock past ${new Date(CLOCK_MAX_MS).toISOString()}`);
    account.clockOffsetMs += target - now;
    this.#tx.updateAccount(account);
    this.#tx.clockMoved(account);
    await runDue(this.turn, account);
    return { now: new Date(target).toISOString() };
  }
  async flushWebhooks(accountId?: string): ControlAnswer<WebhookDelivery[]> {
    if (accountId !== undefined) await this.#account(accountId);
    return new AfterCommit(() => this.context.work.flush(accountId));
  }
  async redeliverWebhook(id: string): ControlAnswer<WebhookDelivery> {
    const found = await this.#tx.delivery(id);
    if (found === null) throw new ApiError("NOT_FOUND", `webhook delivery ${id} does not exist`);
    const account = await this.turn.account(found.accountId);
    const delivery = (await this.#tx.delivery(id)) ?? found;
    restartDelivery(delivery, this.turn.now(account));
    this.#tx.updateDelivery(delivery);
    this.turn.queued.push(delivery);
    return new AfterCommit(() => this.context.work.attempted(id));
  }
  async addFault(fault: FaultParams): Promise<Fault> {
    const params = checked(FaultBody, fault);
    if (params.accountId !== undefined) await this.turn.account(params.accountId, false);
    const added = await this.#tx.addFault(params);
    if (!this.#tx.sandbox.faultsArmed) this.#tx.updateSandbox({ ...this.#tx.sandbox, faultsArmed: true });
    return added;
  }
  faults(accountId?: string): Promise<Fault[]> {
    return this.#tx.faults(accountId);
  }
  async clearFaults(accountId?: string): Promise<void> {
    this.#tx.clearFaults(accountId);
  }
  async setRateLimit(params: RateLimitParams | null): Promise<void> {
    let rateLimit: RateLimitParams | null = null;
    if (params !== null) {
      const input = checked(RateLimitBody, params);
      rateLimit = input.limit === null ? null : { limit: input.limit, windowMs: input.windowMs ?? 1000 };
    }
    this.#tx.updateSandbox({ ...this.#tx.sandbox, rateLimit });
  }
  async rateLimit(): Promise<RateLimitParams | null> {
    return this.#tx.sandbox.rateLimit;
  }
  async registerPixKey(params: RegisterPixKeyParams): Promise<PixKeyEntry> {
    const input = checked(PixKeyBody, params);
    if (input.accountId !== undefined) await this.turn.account(input.accountId, false);
    const entry = registeredEntry(input);
    this.#tx.registerPixKey({ ...input, ...entry });
    return entry;
  }
  /** Back to the start state: the default account only (same id, keys and webhook secret), seed keys, real clock. */
  async reset(): Promise<void> {
    const id = this.#tx.sandbox.defaultAccountId;
    const current = id === null ? null : await this.turn.account(id);
    if (current === null)
      throw new ApiError("INTERNAL_ERROR", "the sandbox has no default account to reset to");
    this.#tx.resetSandbox(current.recreated());
    for (const entry of this.context.startPixKeys()) this.#tx.registerPixKey(entry);
  }
}

export { payinView, payoutView };
