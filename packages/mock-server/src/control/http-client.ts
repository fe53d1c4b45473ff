import type { ControlCall, ControlRequest } from "./call.js";
import { definedQuery } from "./direct.js";
import { controlFrom, type MockControl, MockControlError } from "./mock-control.js";
import { CONTROL_CALLS, LIST_CALLS } from "./table.js";

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
export function basicAuthorization({
  publicKey,
  secretKey,
}: {
  publicKey: string;
  secretKey: string;
}): string {
  const bytes = new TextEncoder().encode(`${publicKey}:${secretKey}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** The URL path and query of a call of the table under `/_mock`. */
export function controlPath(call: ControlCall<never, unknown, unknown>, request: ControlRequest): string {
  const path = call.path.replace(":id", encodeURIComponent(request.id ?? ""));
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(definedQuery(request.query))) query.set(key, String(value));
  return `/_mock${path}${query.size > 0 ? `?${query}` : ""}`;
}

/**
 * The {@link MockControl} of a mock in another process (the `paykit-mock` CLI): each method is one
 * call of the `/_mock` HTTP control API, as the control table describes it.
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
  async function send<W>(call: ControlCall<never, W, unknown>, request: ControlRequest): Promise<W> {
    const body = call.body === null ? undefined : request.body;
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;
    else if (options.credentials) headers.authorization = basicAuthorization(options.credentials);
    const response = await doFetch(`${base}${controlPath(call as never, request)}`, {
      method: call.method,
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
    return parsed as W;
  }
  return controlFrom(send, CONTROL_CALLS, LIST_CALLS);
}
