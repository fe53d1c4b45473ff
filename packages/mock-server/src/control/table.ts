// The mock's control API as one table (docs/decisions/mock-control-api.md): each entry
// is one call, with its method and path under /_mock, whom it concerns, its body and query schemas, how
// the typed method's arguments become a request, and the domain operation it runs. The HTTP routes
// (http/control-routes.ts), the in-process control (direct.ts), the HTTP client (http-client.ts), the
// `MockControl` type (mock-control.ts) and the OpenAPI document of /_mock (openapi.ts) are derived from
// it: adding a control call is one entry here and its test.
import type { CreateAccountParams, UpdateAccountParams } from "../domain/accounts.js";
import { mapAnswer, type SetClockParams } from "../domain/control.js";
import {
  ClockBody,
  CreateAccountBody,
  FaultBody,
  ListenBody,
  ListQuery,
  PixKeyBody,
  RateLimitBody,
  RotateWebhookSecretBody,
  UpdateAccountBody,
} from "../domain/control-params.js";
import type { FaultParams, RateLimitParams } from "../domain/faults.js";
import type { ListenParams } from "../domain/listeners.js";
import type { ListOptions } from "../domain/lists.js";
import type { RegisterPixKeyParams } from "../domain/pix-directory.js";
import { controlCall } from "./call.js";
import {
  AccountQuery,
  clockBody,
  dataOf,
  keysAccount,
  listQuery,
  nothing,
  pageData,
  type WebhookListOptions,
  WebhookListQuery,
  webhookListQuery,
} from "./requests.js";
import { STEP_CALLS } from "./table-steps.js";

export type { WebhookListOptions } from "./requests.js";

/** Every control call of the mock, by the name of its `MockControl` method. */
export const CONTROL_CALLS = {
  /** Opens an account (`POST /_mock/accounts`) and answers its key pair. */
  createAccount: controlCall({
    method: "POST",
    path: "/accounts",
    scope: "open",
    summary: "Open an account; answers its keys",
    status: 201,
    body: CreateAccountBody,
    query: null,
    request: (params?: CreateAccountParams) => ({ body: params ?? {} }),
    run: (ops, { body }) => ops.createAccount(body),
  }),
  /**
   * Every account with its settings and balance (`GET /_mock/accounts?limit=&cursor=`), oldest first:
   * one page, at most `limit` (default 100, at most 1000); {@link MockControl.listAll} reads them all.
   * It concerns every account: on a shared sandbox the admin token's alone (`ownAccount` answers keys theirs).
   */
  accounts: controlCall({
    method: "GET",
    path: "/accounts",
    scope: "allAccounts",
    summary: "List every account",
    body: null,
    query: ListQuery,
    request: (options?: ListOptions) => ({ query: listQuery(undefined, options) }),
    run: (ops, { query }) => ops.accounts(query),
    result: pageData,
  }),
  /**
   * The account whose keys the request is sent with (`GET /_mock/account`, `Authorization: Basic pk:sk`),
   * with its settings and balance: how a tool given only keys (`paykit-mock trigger`, `listen`, `mcp`, the
   * dashboard) learns its account, on any mock. 404 when no account has the keys (in process: always, a
   * direct call has none; call `getAccount`). See docs/decisions/account-list-and-own-account.md.
   */
  ownAccount: controlCall({
    method: "GET",
    path: "/account",
    scope: "caller",
    summary: "The account of the keys the request is sent with",
    body: null,
    query: null,
    request: () => ({}),
    run: (ops, { caller }) => ops.getAccount(keysAccount(caller)),
  }),
  /** An account's settings and balance (`GET /_mock/accounts/{id}`). */
  getAccount: controlCall({
    method: "GET",
    path: "/accounts/:id",
    scope: "account",
    summary: "An account's settings and balance",
    body: null,
    query: null,
    request: (accountId: string) => ({ id: accountId }),
    run: (ops, { id }) => ops.getAccount(id),
  }),
  /**
   * One account back to how it was created (`POST /_mock/accounts/{id}/reset`): its payins, payouts,
   * deliveries and faults gone, settings and opening balance as created; its id, API keys and webhook
   * secret kept. Other accounts are untouched: parallel runs sharing a mock each reset their own.
   */
  resetAccount: controlCall({
    method: "POST",
    path: "/accounts/:id/reset",
    scope: "account",
    summary: "Reset one account to its creation (id, keys and webhook secret kept)",
    body: null,
    query: null,
    request: (accountId: string) => ({ id: accountId }),
    run: (ops, { id }) => ops.resetAccount(id),
  }),
  /** An account's own test clock: the sandbox clock plus the account's offset. */
  accountClock: controlCall({
    method: "GET",
    path: "/accounts/:id/clock",
    scope: "account",
    summary: "An account's clock",
    body: null,
    query: null,
    request: (accountId: string) => ({ id: accountId }),
    run: (ops, { id }) => ops.accountClock(id),
  }),
  /**
   * Sets or advances one account's clock (`POST /_mock/accounts/{id}/clock`, the shapes of
   * `/_mock/clock`): its expiries, reserve releases and webhook retries run on it; other accounts' do not move.
   */
  setAccountClock: controlCall({
    method: "POST",
    path: "/accounts/:id/clock",
    scope: "account",
    summary: "Set or advance an account's clock; its due work runs",
    body: ClockBody,
    query: null,
    request: (accountId: string, params: SetClockParams) => ({ id: accountId, body: clockBody(params) }),
    run: (ops, { id, body }) => ops.setAccountClock(id, body),
  }),
  /** Changes an account's settings (`POST /_mock/accounts/{id}/settings`). */
  updateAccount: controlCall({
    method: "POST",
    path: "/accounts/:id/settings",
    scope: "account",
    summary: "Change an account's settings",
    body: UpdateAccountBody,
    query: null,
    request: (accountId: string, params: UpdateAccountParams) => ({ id: accountId, body: params }),
    run: (ops, { id, body }) => ops.updateAccount(id, body),
  }),
  /**
   * Rotates an account's webhook secret (`POST /_mock/accounts/{id}/webhook-secret`): every later
   * delivery, retries of earlier events included, is signed with the new secret, and during the grace
   * period (default 24 h of mock time) with the previous one too.
   */
  rotateWebhookSecret: controlCall({
    method: "POST",
    path: "/accounts/:id/webhook-secret",
    scope: "account",
    summary: "Rotate an account's webhook secret (the previous one signs too during the grace)",
    body: RotateWebhookSecretBody,
    query: null,
    request: (accountId: string, params?: { gracePeriodMs?: number }) => ({
      id: accountId,
      body: params ?? {},
    }),
    run: (ops, { id, body }) => ops.rotateWebhookSecret(id, body),
  }),
  /** An account's current webhook signing secret, for a receiver's `.env` (`paykit-mock listen --print-secret`). */
  webhookSecret: controlCall({
    method: "GET",
    path: "/accounts/:id/webhook-secret",
    scope: "account",
    summary: "An account's current webhook signing secret",
    body: null,
    query: null,
    request: (accountId: string) => ({ id: accountId }),
    run: (ops, { id }) => ops.webhookSecret(id),
  }),
  /**
   * Whether a `paykit-mock listen` takes the account's deliveries now, and which events
   * (`GET /_mock/accounts/{id}/listener`): `paykit-mock trigger` sends its webhooks there when it is.
   */
  listener: controlCall({
    method: "GET",
    path: "/accounts/:id/listener",
    scope: "account",
    summary: "Whether a paykit-mock listen takes the account's deliveries now, and which events",
    body: null,
    query: null,
    request: (accountId: string) => ({ id: accountId }),
    run: (ops, { id }) => ops.listener(id),
  }),
  /**
   * One poll of `paykit-mock listen` (`POST /_mock/accounts/{id}/listen`): answers the attempts of the
   * account's deliveries to send to the laptop, waiting up to `waitMs` for one, and records the local
   * answers it acknowledges as those attempts. A listener with a new id takes the account over.
   */
  listen: controlCall({
    method: "POST",
    path: "/accounts/:id/listen",
    scope: "account",
    summary: "Poll for an account's webhook attempts and acknowledge the local answers (paykit-mock listen)",
    body: ListenBody,
    query: null,
    request: (accountId: string, params: ListenParams) => ({ id: accountId, body: params }),
    run: (ops, { id, body }) => ops.listen(id, body),
  }),
  /**
   * The newest payins (`GET /_mock/payins?accountId=&limit=&cursor=`), of one account or of all, each
   * with its account and status history: one page, at most `limit` (default 100, at most 1000).
   */
  payins: controlCall({
    method: "GET",
    path: "/payins",
    scope: "queried",
    summary: "List payins, newest first, of one account or all",
    body: null,
    query: ListQuery,
    request: (accountId?: string, options?: ListOptions) => ({ query: listQuery(accountId, options) }),
    run: (ops, { query }) => ops.payins(query),
    result: pageData,
  }),
  /**
   * The newest payouts (`GET /_mock/payouts?accountId=&limit=&cursor=`), of one account or of all, each
   * with its account and status history: one page, at most `limit` (default 100, at most 1000).
   */
  payouts: controlCall({
    method: "GET",
    path: "/payouts",
    scope: "queried",
    summary: "List payouts, newest first, of one account or all",
    body: null,
    query: ListQuery,
    request: (accountId?: string, options?: ListOptions) => ({ query: listQuery(accountId, options) }),
    run: (ops, { query }) => ops.payouts(query),
    result: pageData,
  }),
  ...STEP_CALLS,
  /** The mock clock. */
  clock: controlCall({
    method: "GET",
    path: "/clock",
    scope: "global",
    summary: "The sandbox clock",
    body: null,
    query: null,
    request: () => ({}),
    run: (ops) => ops.clock(),
  }),
  /** Sets or advances the mock clock; due expiries, reserve releases and retries run at once. */
  setClock: controlCall({
    method: "POST",
    path: "/clock",
    scope: "global",
    summary: "Set or advance the sandbox clock; due work runs",
    body: ClockBody,
    query: null,
    request: (params: SetClockParams) => ({ body: clockBody(params) }),
    run: (ops, { body }) => ops.setClock(body),
  }),
  /**
   * The webhook delivery log (`GET /_mock/webhooks?accountId=&limit=&cursor=`), of one account or of
   * all: one page, at most `limit` (default 100, at most 1000). Oldest first, or newest first with
   * `order: "newest"`; `resourceId`, `status` (the event's) and `state` keep those deliveries alone.
   * A cursor goes on with the filters and order of its page (docs/decisions/webhook-log-filters.md).
   */
  webhooks: controlCall({
    method: "GET",
    path: "/webhooks",
    scope: "queried",
    summary:
      "The webhook delivery log of one account or all, oldest first (order=newest: newest first), filtered by resourceId, event status and state",
    body: null,
    query: WebhookListQuery,
    request: (accountId?: string, options?: WebhookListOptions) => ({
      query: webhookListQuery(accountId, options),
    }),
    run: (ops, { query }) => ops.webhooks(query),
    result: pageData,
  }),
  /**
   * Runs every retry due on the mock clock (and every held out-of-order event) now, of one account or
   * of all (`POST /_mock/webhooks/flush?accountId=`); resolves with the deliveries attempted once they
   * settled.
   */
  flushWebhooks: controlCall({
    method: "POST",
    path: "/webhooks/flush",
    scope: "queried",
    summary: "Run the due webhook retries now; answers the deliveries attempted",
    body: null,
    query: AccountQuery,
    request: (accountId?: string) => ({ query: { accountId } }),
    run: (ops, { query }) => mapAnswer(ops.flushWebhooks(query.accountId), (data) => ({ data })),
    result: dataOf,
  }),
  /** Sends a delivery again now (a fresh cycle of 8 attempts). */
  redeliverWebhook: controlCall({
    method: "POST",
    path: "/webhooks/:id/redeliver",
    scope: "delivery",
    summary: "Send a delivery again now (a fresh cycle of attempts)",
    body: null,
    query: null,
    request: (deliveryId: string) => ({ id: deliveryId }),
    run: (ops, { id }) => ops.redeliverWebhook(id),
  }),
  /** The faults still armed; with `accountId`, those naming that account. */
  faults: controlCall({
    method: "GET",
    path: "/faults",
    scope: "queried",
    summary: "The faults still armed",
    body: null,
    query: AccountQuery,
    request: (accountId?: string) => ({ query: { accountId } }),
    run: async (ops, { query }) => ({ data: await ops.faults(query.accountId) }),
    result: dataOf,
  }),
  /** Injects a fault into the next matching requests. */
  addFault: controlCall({
    method: "POST",
    path: "/faults",
    scope: "bodyAccount",
    summary: "Inject a fault into the next matching requests",
    status: 201,
    body: FaultBody,
    query: null,
    request: (fault: FaultParams) => ({ body: fault }),
    run: (ops, { body }) => ops.addFault(body),
  }),
  /** Removes every fault; with `accountId`, only those naming that account. */
  clearFaults: controlCall({
    method: "DELETE",
    path: "/faults",
    scope: "queried",
    summary: "Remove the faults (of one account, or all)",
    body: null,
    query: AccountQuery,
    request: (accountId?: string) => ({ query: { accountId } }),
    run: async (ops, { query }) => {
      await ops.clearFaults(query.accountId);
      return { data: [] as never[] };
    },
    result: nothing,
  }),
  /** Switches the rate limit on (429 RATE_LIMITED with Retry-After) or off (`null`). */
  setRateLimit: controlCall({
    method: "POST",
    path: "/rate-limit",
    scope: "global",
    summary: "Switch the rate limit on, or off with { limit: null }",
    body: RateLimitBody,
    query: null,
    request: (params: RateLimitParams | null) => ({ body: params ?? { limit: null } }),
    run: async (ops, { body }) => {
      await ops.setRateLimit(body.limit === null ? null : { limit: body.limit, windowMs: body.windowMs });
      return { rateLimit: await ops.rateLimit() };
    },
    result: nothing,
  }),
  /**
   * The keys of the PIX key directory every account finds, then (`accountId`) that account's own, each
   * part in key order (`GET /_mock/pix-keys?accountId=&limit=&cursor=`): one page, at most `limit`.
   */
  pixKeys: controlCall({
    method: "GET",
    path: "/pix-keys",
    scope: "queried",
    summary: "The PIX key directory (shared keys, then one account's own)",
    body: null,
    query: ListQuery,
    request: (accountId?: string, options?: ListOptions) => ({ query: listQuery(accountId, options) }),
    run: (ops, { query }) => ops.pixKeys(query),
    result: pageData,
  }),
  /** Registers a key in the PIX key directory, for every account or (`accountId`) for one alone. */
  registerPixKey: controlCall({
    method: "POST",
    path: "/pix-keys",
    scope: "bodyAccount",
    summary: "Register a key in the PIX key directory",
    status: 201,
    body: PixKeyBody,
    query: null,
    request: (params: RegisterPixKeyParams) => ({ body: params }),
    run: (ops, { body }) => ops.registerPixKey(body),
  }),
  /** Back to the start state: the default account only (same keys), seed directory, real clock. */
  reset: controlCall({
    method: "POST",
    path: "/reset",
    scope: "global",
    summary: "Reset the whole sandbox to its start",
    body: null,
    query: null,
    request: () => ({}),
    run: async (ops) => {
      await ops.reset();
      return { reset: true as const };
    },
    result: nothing,
  }),
};

/** The control table's type: each call by the name of its method. */
export type ControlCalls = typeof CONTROL_CALLS;

/** The name of a control call. */
export type ControlCallName = keyof ControlCalls;

/** The control list behind each list name of `listPage`/`listAll`. */
export const LIST_CALLS = {
  accounts: "accounts",
  payins: "payins",
  payouts: "payouts",
  webhooks: "webhooks",
  pixKeys: "pixKeys",
} as const satisfies Record<string, ControlCallName>;
