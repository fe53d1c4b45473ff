// The sandbox an MCP session drives: a running Paykit mock, reached over HTTP, and the account its
// tools act on. It talks to nothing but a mock: the URL must answer the mock's control API document,
// checked before the first call and again after the mock stopped answering.
import type { ErrorDetail } from "@paykit/contract";
import type { ControlCall, ControlRequest } from "../control/call.js";
import { basicAuthorization, controlPath } from "../control/http-client.js";
import { identifyMock } from "../control/identify.js";
import { CONTROL_CALLS } from "../control/table.js";
import type { AccountKeys } from "../domain/accounts.js";
import { ToolError } from "./tool-error.js";
import { Scrubber } from "./withheld.js";

/** Where the mock is and how this session reaches it. */
export interface SandboxOptions {
  /** The mock's base URL, without a trailing slash. */
  url: string;
  /** The account the tools act on from the start; without, `createAccount` makes one. */
  keys?: { publicKey: string; secretKey: string };
  /** The mock's `--admin-token`, when it was started with one. */
  adminToken?: string;
  /** The webhook secret of the developer's receiver, for the doctor when the session has no other. */
  webhookSecret?: string;
  /** The largest payout amount, in cents, this session may create. */
  maxPayoutCents: number;
  /** HTTP client. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A request of the merchant API (`/payin`, `/payout`). */
export interface ApiRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

// A control call with an acknowledgement can wait on webhook deliveries (up to 10 s each): generous.
const REQUEST_TIMEOUT_MS = 120_000;

/** One MCP session's view of the mock: its URL, its account, and the calls it makes. */
export class Sandbox {
  /** The mock's base URL. */
  readonly url: string;
  /** The largest payout amount, in cents, this session may create (`--max-payout-cents`). */
  readonly maxPayoutCents: number;
  /** Removes secrets and card numbers from what the agent is shown. */
  readonly scrubber = new Scrubber();
  readonly #adminToken: string | undefined;
  readonly #fetch: typeof fetch;
  #keys: { publicKey: string; secretKey: string } | undefined;
  #account: AccountKeys | undefined;
  readonly #receiverSecret: string | undefined;
  #verified: Promise<void> | undefined;

  constructor(options: SandboxOptions) {
    this.url = options.url;
    this.maxPayoutCents = options.maxPayoutCents;
    this.#adminToken = options.adminToken;
    this.#keys = options.keys;
    this.#receiverSecret = options.webhookSecret;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.scrubber.rememberSecret(options.keys?.secretKey);
    this.scrubber.rememberSecret(options.adminToken);
    this.scrubber.rememberSecret(options.webhookSecret);
  }

  /** Resolves once the URL answered as a Paykit mock (asked once, and again after it stopped answering). */
  verify(): Promise<void> {
    this.#verified ??= identifyMock(this.url, this.#fetch).then((identity) => {
      if (identity.kind === "mock") return;
      this.#verified = undefined;
      if (identity.kind === "unreachable")
        throw new ToolError(
          "MOCK_UNREACHABLE",
          `nothing answers at ${this.url} (${identity.cause}): start the mock (npx paykit-mock) or fix --url`,
        );
      throw new ToolError(
        "NOT_A_MOCK",
        `${this.url} is not a Paykit mock (GET /_mock/openapi.json answered ${identity.answer}): ${identity.hint ?? "this server drives the mock only"}`,
      );
    });
    return this.#verified;
  }

  /** The account the tools act on: the one of `--keys` (found by its public key), or the last one created. */
  async account(): Promise<AccountKeys> {
    if (this.#account !== undefined) return this.#account;
    const keys = this.#keys;
    if (keys === undefined)
      throw new ToolError(
        "NO_ACCOUNT",
        "no account yet: call createAccount first, or start the server with --keys pk_test_…:sk_test_…",
      );
    // the keys read their own account (GET /_mock/account), on any mock: no list of every account
    let found: { accountId: string };
    try {
      found = (await this.#send(controlPath(CONTROL_CALLS.ownAccount as never, {}), {
        method: "GET",
        headers: { authorization: basicAuthorization(keys) },
      })) as { accountId: string };
    } catch (error) {
      if (!(error instanceof ToolError) || error.status !== 404) throw error;
      throw new ToolError(
        "UNKNOWN_KEYS",
        `no account of the mock at ${this.url} has the public key ${keys.publicKey} with that secret key: check --keys, or call createAccount`,
      );
    }
    this.#account = { accountId: found.accountId, ...keys };
    return this.#account;
  }

  /** The mock's `--admin-token` this session was given, for the calls it makes. */
  get adminToken(): string | undefined {
    return this.#adminToken;
  }

  /**
   * The webhook secret the doctor checks a receiver with by default: the developer's receiver's
   * (`--webhook-secret`), else the one of the account this session created.
   */
  get webhookSecret(): string | undefined {
    return this.#receiverSecret ?? this.#account?.webhookSecret;
  }

  /** The developer's receiver's webhook secret (`--webhook-secret`), if the session was given one. */
  get receiverWebhookSecret(): string | undefined {
    return this.#receiverSecret;
  }

  /** Makes an account the one the later tools act on; its secrets stay here. */
  adopt(account: AccountKeys): void {
    this.#account = { ...account };
    this.#keys = { publicKey: account.publicKey, secretKey: account.secretKey };
    this.scrubber.rememberSecret(account.secretKey);
    this.scrubber.rememberSecret(account.webhookSecret);
  }

  /** Records the account's new webhook secret (set by a settings change). */
  setWebhookSecret(secret: string): void {
    if (this.#account !== undefined) this.#account = { ...this.#account, webhookSecret: secret };
    this.scrubber.rememberSecret(secret);
  }

  /** One call of the mock's control API, as the control table describes it; answers its JSON body. */
  control(call: ControlCall<never, unknown, unknown>, request: ControlRequest): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.#adminToken !== undefined) headers.authorization = `Bearer ${this.#adminToken}`;
    else if (this.#keys !== undefined) headers.authorization = basicAuthorization(this.#keys);
    const body = call.body === null ? undefined : (request.body ?? {});
    if (body !== undefined) headers["content-type"] = "application/json";
    return this.#send(controlPath(call, request), { method: call.method, headers, body });
  }

  /** One call of the merchant API with the account's keys; answers its JSON body. */
  async api(request: ApiRequest): Promise<unknown> {
    const keys = await this.account();
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) query.set(key, String(value));
    const headers: Record<string, string> = { authorization: basicAuthorization(keys) };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    const path = `${request.path}${query.size > 0 ? `?${query}` : ""}`;
    return this.#send(path, { method: request.method, headers, body: request.body });
  }

  async #send(path: string, init: { method: string; headers: Record<string, string>; body?: unknown }) {
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        method: init.method,
        headers: init.headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        redirect: "error",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      this.#verified = undefined;
      const cause = ((error as Error)?.cause as Error | undefined)?.message ?? (error as Error)?.message;
      throw new ToolError("MOCK_UNREACHABLE", `the mock at ${this.url} did not answer (${cause})`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      throw new ToolError(
        "BAD_ANSWER",
        `the mock answered HTTP ${response.status} with a body that is not JSON`,
        {
          status: response.status,
        },
      );
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
      throw new ToolError(
        typeof error.code === "string" ? error.code : `HTTP_${response.status}`,
        typeof error.message === "string" ? error.message : `the mock answered HTTP ${response.status}`,
        {
          status: response.status,
          ...(Array.isArray(error.details) ? { details: error.details as ErrorDetail[] } : {}),
        },
      );
    }
    return parsed;
  }
}
