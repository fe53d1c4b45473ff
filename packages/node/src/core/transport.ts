import type { KyInstance } from "ky";
import type { ResolvedConfig } from "./config.js";
import { classifyNetworkError, type NetworkFailure } from "./network-error.js";

/** What one attempt produced: an answer (any status), or why there was none. */
export type AttemptResult =
  | { kind: "response"; status: number; headers: Headers; text: string }
  | { kind: "timeout" }
  | { kind: "aborted"; reason: unknown }
  | { kind: "network"; failure: NetworkFailure; cause: unknown };

/** Headers the client owns: a per-call header may not replace the credentials or the body's type. */
const RESERVED = new Set(["authorization", "content-type", "content-length", "host"]);

function callHeaders(
  body: string | undefined,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (extra) {
    for (const name of Object.keys(extra)) {
      if (!RESERVED.has(name.toLowerCase())) headers[name] = extra[name] as string;
    }
  }
  if (body !== undefined) headers["content-type"] = "application/json";
  return headers;
}

/**
 * Sends one attempt and reads the whole answer. Creations (POST) go through ky with its own
 * retries, timeout and HTTP errors switched off: the retry policy, timeouts and error mapping live
 * in `core/` (DESIGN.md section 5), and no ky error or type leaves this file. Reads (GET, the hot
 * path of polling and pagination) call fetch directly with the same headers: ky builds and clones
 * two `Request` objects per call, which measured 1.5-1.7x raw fetch (README: Performance).
 */
export class Transport {
  #ky: Promise<KyInstance> | undefined;
  readonly #fetch: typeof fetch;
  readonly #readHeaders: Record<string, string>;

  constructor(config: ResolvedConfig) {
    const headers = {
      authorization: config.authorization,
      accept: "application/json",
      ...config.clientHeaders,
    };
    this.#fetch = config.fetch;
    this.#readHeaders = headers;
  }

  // ky probes Request and stream support as it loads, which makes Node load its whole fetch
  // implementation (~10 ms): it is loaded with the first creation, not when the SDK is imported.
  #creations(): Promise<KyInstance> {
    this.#ky ??= import("ky").then(
      ({ default: ky }) =>
        ky.create({
          retry: 0,
          throwHttpErrors: false,
          timeout: false,
          fetch: this.#fetch,
          headers: this.#readHeaders,
        }),
      (error: unknown) => {
        this.#ky = undefined;
        throw error;
      },
    );
    return this.#ky;
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
    if (signal?.aborted) return { kind: "aborted", reason: signal.reason };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response =
        body === undefined
          ? await this.#fetch(url, {
              method,
              headers: extraHeaders
                ? { ...this.#readHeaders, ...callHeaders(undefined, extraHeaders) }
                : this.#readHeaders,
              signal: controller.signal,
            })
          : await (await this.#creations())(url, {
              method,
              body,
              headers: callHeaders(body, extraHeaders),
              signal: controller.signal,
            });
      const text = await response.text();
      return { kind: "response", status: response.status, headers: response.headers, text };
    } catch (error) {
      if (timedOut) return { kind: "timeout" };
      if (signal?.aborted) return { kind: "aborted", reason: signal.reason };
      return { kind: "network", failure: classifyNetworkError(error), cause: error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
