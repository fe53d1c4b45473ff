import type { ResolvedConfig } from "./config.js";
import { classifyNetworkError, type NetworkFailure } from "./network-error.js";

/** The header that carries each attempt's request id to the service (docs/decisions/request-ids.md). */
export const REQUEST_ID_HEADER = "x-request-id";

/** What one attempt produced: an answer (any status), or why there was none. */
export type AttemptResult =
  | { kind: "response"; status: number; headers: Headers; text: string; response: Response }
  | { kind: "timeout" }
  /** The caller's signal stopped it; `sent: "no"` when it was aborted before the request left. */
  | { kind: "aborted"; reason: unknown; sent: "no" | "maybe" }
  | { kind: "network"; failure: NetworkFailure; cause: unknown };

/**
 * Headers the client owns: a per-call header may not replace the credentials, the body's type or the
 * attempt's request id (docs/decisions/request-ids.md).
 */
const RESERVED = new Set(["authorization", "content-type", "content-length", "host", REQUEST_ID_HEADER]);

/**
 * Sends one attempt with `fetch` and reads the whole answer as text. Each attempt has its own time
 * limit; the retry policy and the error mapping live in the core. The request path stays within a few
 * microseconds of a hand-written `fetch`.
 */
export class Transport {
  readonly #fetch: typeof fetch;
  readonly #authorization: string;
  /** The header the SDK names itself in (`user-agent`, or its browser stand-in), and its value. */
  readonly #agentHeader: string;
  readonly #agent: string;

  constructor(config: ResolvedConfig) {
    this.#fetch = config.fetch;
    this.#authorization = config.authorization;
    const [agentHeader, agent] = Object.entries(config.clientHeaders)[0] ?? ["user-agent", ""];
    this.#agentHeader = agentHeader;
    this.#agent = agent;
  }

  /**
   * An attempt's headers: the client's, its request id, and a call's own (reserved names dropped).
   * Built as an object literal: spreading a record and adding a key takes V8's slow path (microseconds).
   */
  #headers(
    post: boolean,
    requestId: string,
    extra: Readonly<Record<string, string>> | undefined,
  ): Record<string, string> {
    const headers: Record<string, string> = post
      ? {
          authorization: this.#authorization,
          accept: "application/json",
          "content-type": "application/json",
          "x-request-id": requestId,
        }
      : { authorization: this.#authorization, accept: "application/json", "x-request-id": requestId };
    headers[this.#agentHeader] = this.#agent;
    if (extra === undefined) return headers;
    for (const name of Object.keys(extra)) {
      if (!RESERVED.has(name.toLowerCase())) headers[name] = extra[name] as string;
    }
    return headers;
  }

  /** One attempt of `method url`, limited to `timeoutMs` from sending to the last byte of the answer. */
  async send(
    method: string,
    url: string,
    requestId: string,
    body: string | undefined,
    extraHeaders: Readonly<Record<string, string>> | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    if (signal?.aborted) return { kind: "aborted", reason: signal.reason, sent: "no" };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = signal && (() => controller.abort(signal.reason));
    if (onAbort) signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.#fetch(url, {
        method,
        headers: this.#headers(body !== undefined, requestId, extraHeaders),
        body,
        signal: controller.signal,
      });
      const text = await response.text();
      return { kind: "response", status: response.status, headers: response.headers, text, response };
    } catch (error) {
      if (timedOut) return { kind: "timeout" };
      if (signal?.aborted) return { kind: "aborted", reason: signal.reason, sent: "maybe" };
      return { kind: "network", failure: classifyNetworkError(error), cause: error };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }
}
