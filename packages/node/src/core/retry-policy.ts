/**
 * The money-safe retry policy (docs/errors-and-retries.md, "The money-safe retry policy") as one pure
 * table: for each kind of failed attempt, what each class of call does next and what the failure says
 * about whether a creation took effect. No I/O here, so every rule is unit-tested directly.
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

/** What to do next: send again, look the record up first (payouts, by referenceId), or give up. */
export type RetryDecision = "retry" | "lookup" | "fail";

/**
 * What a failed attempt says about its own effect on the service:
 * `none` it certainly did nothing (never arrived, or refused as too many requests);
 * `answered` the answer says what happened (a refusal, a documented provider error);
 * `in-flight` no answer came, and the service may still be processing it;
 * `unknown` it ended on the service's side without saying whether it took effect (500, a proxy's 502);
 * `took-effect` it succeeded, but its answer could not be read.
 */
export type AttemptEffect = "none" | "answered" | "in-flight" | "unknown" | "took-effect";

/** The kinds of failure the policy tells apart. */
export type FailureClass =
  | "not-sent"
  | "rate-limited"
  | "lost"
  | "server-error"
  | "provider-answer"
  | "refusal"
  | "unreadable";

type PolicyRow = Record<RetryClass, RetryDecision> & { effect: AttemptEffect };

/**
 * The policy. A payin has no lookup by referenceId, so anything that may have reached the service is
 * final for it; a payout is looked up by its referenceId before it is sent again.
 */
export const RETRY_POLICY: Readonly<Record<FailureClass, Readonly<PolicyRow>>> = {
  "not-sent": { read: "retry", "create-payin": "retry", "create-payout": "retry", effect: "none" },
  "rate-limited": { read: "retry", "create-payin": "retry", "create-payout": "retry", effect: "none" },
  lost: { read: "retry", "create-payin": "fail", "create-payout": "lookup", effect: "in-flight" },
  "server-error": { read: "retry", "create-payin": "fail", "create-payout": "lookup", effect: "unknown" },
  "provider-answer": { read: "retry", "create-payin": "fail", "create-payout": "fail", effect: "answered" },
  refusal: { read: "fail", "create-payin": "fail", "create-payout": "fail", effect: "answered" },
  unreadable: { read: "fail", "create-payin": "fail", "create-payout": "lookup", effect: "took-effect" },
};

/** 5xx codes that are definite answers, never retried automatically for a creation (see the service spec's error codes). */
const DOCUMENTED_5XX = new Set(["PROVIDER_ERROR", "TEMPORARY_UNAVAILABLE", "PROVIDER_REJECTED"]);

/** The row of {@link RETRY_POLICY} a failure belongs to. */
export function classifyFailure(failure: AttemptFailure): FailureClass {
  switch (failure.kind) {
    case "timeout":
      return "lost";
    case "network":
      return failure.sent === "no" ? "not-sent" : "lost";
    case "unreadable":
      return "unreadable";
    case "status":
      if (failure.status === 429) return "rate-limited";
      // 501 Not Implemented will not change on a second try; other 4xx are the service's answer.
      if (failure.status < 500 || failure.status === 501 || failure.status > 599) return "refusal";
      return DOCUMENTED_5XX.has(failure.code ?? "") ? "provider-answer" : "server-error";
  }
}

/** The next step after `failure` of a call of class `retryClass`. */
export function decideRetry(retryClass: RetryClass, failure: AttemptFailure): RetryDecision {
  return RETRY_POLICY[classifyFailure(failure)][retryClass];
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
