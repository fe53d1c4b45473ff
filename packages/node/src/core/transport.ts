import type { ResolvedConfig } from "./config.js";
import { classifyNetworkError, type NetworkFailure } from "./network-error.js";

/** What one attempt produced: an answer (any status), or why there was none. */
export type AttemptResult =
  | { kind: "response"; status: number; headers: Headers; text: string }
  | { kind: "timeout" }
  /** The caller's signal stopped it; `sent: "no"` when it was aborted before the request left. */
  | { kind: "aborted"; reason: unknown; sent: "no" | "maybe" }
  | { kind: "network"; failure: NetworkFailure; cause: unknown };

/** Headers the client owns: a per-call header may not replace the credentials or the body's type. */
const RESERVED = new Set(["authorization", "content-type", "content-length", "host"]);

/** The client's headers with a call's own added (reserved names dropped). */
function withCallHeaders(
  base: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const headers: Record<string, string> = { ...base };
  for (const name of Object.keys(extra)) {
    if (!RESERVED.has(name.toLowerCase())) headers[name] = extra[name] as string;
  }
  return headers;
}

/**
 * Sends one attempt with `fetch` and reads the whole answer as text. Each attempt has its own time
 * limit; the retry policy and the error mapping live in the core. The header records are built once
 * per client: the request path stays within a few microseconds of a hand-written `fetch`.
 */
export class Transport {
  readonly #fetch: typeof fetch;
  readonly #getHeaders: Record<string, string>;
  readonly #postHeaders: Record<string, string>;

  constructor(config: ResolvedConfig) {
    this.#fetch = config.fetch;
    this.#getHeaders = {
      authorization: config.authorization,
      accept: "application/json",
      ...config.clientHeaders,
    };
    this.#postHeaders = { ...this.#getHeaders, "content-type": "application/json" };
  }

  /** One attempt of `method url`, limited to `timeoutMs` from sending to the last byte of the answer. */
  async send(
    method: string,
    url: string,
    body: string | undefined,
    extraHeaders: Readonly<Record<string, string>> | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    if (signal?.aborted) return { kind: "aborted", reason: signal.reason, sent: "no" };
    const base = body === undefined ? this.#getHeaders : this.#postHeaders;
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
        headers: extraHeaders ? withCallHeaders(base, extraHeaders) : base,
        body,
        signal: controller.signal,
      });
      const text = await response.text();
      return { kind: "response", status: response.status, headers: response.headers, text };
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
