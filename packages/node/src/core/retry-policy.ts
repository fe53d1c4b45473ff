/**
 * The money-safe retry policy of DESIGN.md section 5, as pure decisions: what may be sent again
 * after which failure, and how long to wait. No I/O here, so every rule is unit-tested directly.
 */

/** How a call may be repeated: reads freely, payins only when unsent, payouts after a lookup. */
export type RetryClass = "read" | "create-payin" | "create-payout";

/** What went wrong with one attempt. */
export type AttemptFailure =
  | { kind: "timeout" }
  | { kind: "network"; sent: "no" | "maybe" }
  | { kind: "status"; status: number; code: string | undefined }
  /** A 2xx whose body could not be read: the call took effect, its answer is lost. */
  | { kind: "unreadable" };

/** What to do next: send again, look the payout up by referenceId first, or give up. */
export type RetryDecision = "retry" | "lookup" | "fail";

/** 5xx codes that are definite answers, never retried automatically (DESIGN.md sections 5 and 6). */
const DOCUMENTED_5XX = new Set(["PROVIDER_ERROR", "TEMPORARY_UNAVAILABLE", "PROVIDER_REJECTED"]);

function isRetryable5xx(status: number): boolean {
  // 501 Not Implemented will not change on a second try.
  return status >= 500 && status <= 599 && status !== 501;
}

/** The next step after `failure` of a call of class `retryClass`. */
export function decideRetry(retryClass: RetryClass, failure: AttemptFailure): RetryDecision {
  if (failure.kind === "status" && failure.status === 429) return "retry";
  if (failure.kind === "network" && failure.sent === "no") return "retry";
  switch (retryClass) {
    case "read":
      if (failure.kind === "timeout" || failure.kind === "network") return "retry";
      if (failure.kind === "status" && isRetryable5xx(failure.status)) return "retry";
      return "fail";
    case "create-payin":
      // A payin has no lookup by referenceId: anything that may have reached the service is final.
      return "fail";
    case "create-payout":
      if (failure.kind === "timeout" || failure.kind === "network" || failure.kind === "unreadable")
        return "lookup";
      if (
        failure.kind === "status" &&
        isRetryable5xx(failure.status) &&
        !DOCUMENTED_5XX.has(failure.code ?? "")
      ) {
        return "lookup";
      }
      return "fail";
  }
}

/** Backoff settings; see `PaykitOptions.retryBackoff`. */
export interface BackoffOptions {
  /** Upper bound of the first delay, in ms. */
  initialDelayMs: number;
  /** Upper bound of any delay, in ms. */
  maxDelayMs: number;
  /** The longest `Retry-After` honoured, in ms; a longer one ends the retries. */
  maxRetryAfterMs: number;
}

/** Default backoff: 0.5 s doubling up to 8 s, full jitter; Retry-After honoured up to 60 s. */
export const DEFAULT_BACKOFF: BackoffOptions = {
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(max, initial * 2^retry)), so
 * many clients failing together do not retry together.
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** The delay a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date; undefined when absent or invalid. */
export function parseRetryAfter(
  header: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names its month ("Sun, 22 Nov 2026 12:00:30 GMT"); Date.parse alone would read "-5" as a year.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait before the next attempt: the server's `Retry-After` when it gave one (no jitter, it
 * asked for that moment), else the jittered backoff; undefined when the server asks for longer
 * than `maxRetryAfterMs`, which ends the retries (the caller gets `retryAfterMs` to schedule).
 */
export function nextDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs > options.maxRetryAfterMs ? undefined : retryAfterMs;
  return backoffDelay(retry, options, random);
}
