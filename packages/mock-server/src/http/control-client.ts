import type {
  ControlCallOptions,
  ControlListEntry,
  ControlListOptions,
  MockControl,
  SetClockParams,
} from "../domain/control.js";
import { eachEntry, MockControlError } from "../domain/control.js";
import type { ControlListName, ListPage } from "../domain/lists.js";

/** Where a running mock is and how to reach its control API. */
export interface HttpControlOptions {
  /** Base URL of the mock (`http://127.0.0.1:4010`). */
  url: string;
  /** The `--admin-token` the mock was started with, if any. */
  adminToken?: string;
  /**
   * An account's own keys, for a shared sandbox (`--shared`): the calls about that account are
   * authorized by them, without the admin token. Ignored when `adminToken` is given.
   */
  credentials?: { publicKey: string; secretKey: string };
  /** HTTP client. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** `Basic base64(pk:sk)`, the keys in UTF-8 as the merchant API reads them. */
function basicAuthorization({ publicKey, secretKey }: { publicKey: string; secretKey: string }): string {
  const bytes = new TextEncoder().encode(`${publicKey}:${secretKey}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** A clock body as JSON: a `Date` or epoch ms `now` sent as ISO 8601. */
function clockBody(params: SetClockParams): object {
  const now =
    params.now instanceof Date || typeof params.now === "number"
      ? new Date(params.now).toISOString()
      : params.now;
  return { ...params, now };
}

/** The path under `/_mock` of each control list. */
const LIST_PATHS: Record<ControlListName, string> = {
  accounts: "/accounts",
  payins: "/payins",
  payouts: "/payouts",
  webhooks: "/webhooks",
  pixKeys: "/pix-keys",
};

/** `?awaitWebhooks=true` when a call asks to wait for its deliveries. */
function callQuery(options: ControlCallOptions | undefined): string {
  return options?.awaitWebhooks ? "?awaitWebhooks=true" : "";
}

/**
 * The {@link MockControl} of a mock in another process (the `paykit-mock` CLI): each method is one
 * call of the `/_mock` HTTP control API.
 *
 * @example
 * const control = createHttpControl({ url: "http://127.0.0.1:4010" });
 * await control.payPayin("pi_01J…");
 *
 * @example
 * // A CI run on a shared sandbox (`paykit-mock --shared`): its own account, driven by its own keys.
 * const keys = await createHttpControl({ url }).createAccount({ balance: 50_000 });
 * const control = createHttpControl({ url, credentials: keys });
 * await control.setAccountClock(keys.accountId, { advanceMs: 86_400_000 });
 */
export function createHttpControl(options: HttpControlOptions): MockControl {
  const base = options.url.replace(/\/$/, "");
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;
    else if (options.credentials) headers.authorization = basicAuthorization(options.credentials);
    const response = await doFetch(`${base}/_mock${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const error = (parsed ?? {}) as {
        code?: string;
        message?: string;
        details?: MockControlError["details"];
      };
      throw new MockControlError(
        response.status,
        error.code ?? "UNKNOWN",
        error.message ?? text,
        error.details,
      );
    }
    return parsed as T;
  }
  const id = encodeURIComponent;
  const listPage = <L extends ControlListName>(
    list: L,
    options: ControlListOptions = {},
  ): Promise<ListPage<ControlListEntry[L]>> => {
    const query = new URLSearchParams();
    if (options.accountId !== undefined) query.set("accountId", options.accountId);
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.cursor !== undefined) query.set("cursor", options.cursor);
    const search = query.size > 0 ? `?${query}` : "";
    return send("GET", `${LIST_PATHS[list]}${search}`);
  };
  const listed = async <L extends ControlListName>(list: L, options: ControlListOptions) =>
    (await listPage(list, options)).data;
  return {
    createAccount: (params) => send("POST", "/accounts", params ?? {}),
    getAccount: (accountId) => send("GET", `/accounts/${id(accountId)}`),
    accounts: (options) => listed("accounts", { ...options }),
    payins: (accountId, options) => listed("payins", { ...options, accountId }),
    payouts: (accountId, options) => listed("payouts", { ...options, accountId }),
    listPage,
    listAll: (list, options) => eachEntry((o) => listPage(list, o), options),
    updateAccount: (accountId, params) => send("POST", `/accounts/${id(accountId)}/settings`, params),
    resetAccount: (accountId) => send("POST", `/accounts/${id(accountId)}/reset`),
    rotateWebhookSecret: (accountId, params) =>
      send("POST", `/accounts/${id(accountId)}/webhook-secret`, params ?? {}),
    payPayin: (payinId, o) => send("POST", `/payins/${id(payinId)}/pay${callQuery(o)}`),
    authorizePayin: (payinId, approve, o) =>
      send("POST", `/payins/${id(payinId)}/authorize${callQuery(o)}`, { approve }),
    expirePayin: (payinId, o) => send("POST", `/payins/${id(payinId)}/expire${callQuery(o)}`),
    completeThreeDS: (payinId, outcome, o) =>
      send("POST", `/payins/${id(payinId)}/three-ds${callQuery(o)}`, { outcome }),
    approvePayout: (payoutId, o) => send("POST", `/payouts/${id(payoutId)}/approve${callQuery(o)}`),
    rejectPayout: (payoutId, o) => send("POST", `/payouts/${id(payoutId)}/reject${callQuery(o)}`),
    advancePayout: (payoutId, o) => send("POST", `/payouts/${id(payoutId)}/advance${callQuery(o)}`),
    failPayout: (payoutId, status, o) =>
      send("POST", `/payouts/${id(payoutId)}/fail${callQuery(o)}`, status ? { status } : {}),
    refundPayout: (payoutId, o) => send("POST", `/payouts/${id(payoutId)}/refund${callQuery(o)}`),
    clock: () => send("GET", "/clock"),
    setClock: (params) => send("POST", "/clock", clockBody(params)),
    accountClock: (accountId) => send("GET", `/accounts/${id(accountId)}/clock`),
    setAccountClock: (accountId, params) =>
      send("POST", `/accounts/${id(accountId)}/clock`, clockBody(params)),
    webhooks: (accountId, options) => listed("webhooks", { ...options, accountId }),
    flushWebhooks: async (accountId) =>
      (
        await send<{ data: never }>(
          "POST",
          accountId === undefined ? "/webhooks/flush" : `/webhooks/flush?accountId=${id(accountId)}`,
        )
      ).data,
    redeliverWebhook: (deliveryId) => send("POST", `/webhooks/${id(deliveryId)}/redeliver`),
    addFault: (fault) => send("POST", "/faults", fault),
    faults: async (accountId) =>
      (await send<{ data: never }>("GET", `/faults${accountId ? `?accountId=${id(accountId)}` : ""}`)).data,
    clearFaults: async (accountId) => {
      await send("DELETE", `/faults${accountId ? `?accountId=${id(accountId)}` : ""}`);
    },
    setRateLimit: async (params) => {
      await send("POST", "/rate-limit", params ?? { limit: null });
    },
    registerPixKey: (params) => send("POST", "/pix-keys", params),
    pixKeys: (accountId, options) => listed("pixKeys", { ...options, accountId }),
    reset: async () => {
      await send("POST", "/reset");
    },
  };
}
