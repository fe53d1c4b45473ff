import type { ErrorDetail } from "@paykit/contract";

/** One request about to be sent. Never carries headers: they hold the credentials. */
export interface RequestEvent {
  /** HTTP method. */
  method: string;
  /** Path and query, relative to baseUrl, e.g. `payout?referenceId=r1`. */
  path: string;
  /** 0 for the first attempt, then 1, 2, … */
  attempt: number;
  /**
   * This attempt's client-made id (`req_…`, new for every attempt), sent as `X-Request-Id`; the same id
   * is on the attempt's span, on the error or `withResponse()` it ends in (docs/observability.md).
   */
  requestId: string;
}

/** One answer received. */
export interface ResponseEvent extends RequestEvent {
  /** HTTP status. */
  status: number;
  /** Time from sending to the full body, in ms. */
  durationMs: number;
}

/** A retry about to happen, and why; `requestId` is the failed attempt's (the next one gets a new id). */
export interface RetryEvent extends RequestEvent {
  /** Wait before the next attempt, in ms. */
  delayMs: number;
  /** What failed: `timeout`, `network`, `status 503`, `unreadable`, … */
  reason: string;
}

/** The outcome of looking a payout up by its referenceId after an ambiguous failure of POST /payout. */
export interface PayoutLookupEvent {
  /** The merchant's referenceId that was looked up. */
  referenceId: string;
  /** Whether the payout existed (the client then returns it instead of sending again). */
  found: boolean;
  /** What made the outcome unknown. */
  reason: string;
  /** The id of the POST /payout attempt whose outcome was unknown (the lookup's own attempts have theirs). */
  requestId: string;
}

/** A 2xx answer that does not match the contract's schema; the data is returned as received. */
export interface ResponseMismatchEvent {
  /** HTTP method. */
  method: string;
  /** Path relative to baseUrl. */
  path: string;
  /** HTTP status. */
  status: number;
  /** The id of the attempt that got this answer. */
  requestId: string;
  /** Every field that does not match. */
  details: ErrorDetail[];
}

/**
 * Observability callbacks. They run synchronously on the request path; an exception thrown by a
 * hook is ignored, so logging can never change a payment's outcome.
 */
export interface PaykitHooks {
  /** Before every attempt. */
  onRequest?: (event: RequestEvent) => void;
  /** After every answer, success or error. */
  onResponse?: (event: ResponseEvent) => void;
  /** Before every automatic retry. */
  onRetry?: (event: RetryEvent) => void;
  /** After POST /payout failed ambiguously and the payout was looked up by referenceId. */
  onPayoutLookup?: (event: PayoutLookupEvent) => void;
  /**
   * When a 2xx answer does not match the contract (a newer or broken service). The client returns
   * the answer as received rather than lose it; use this to alert.
   */
  onResponseMismatch?: (event: ResponseMismatchEvent) => void;
}

/** Calls a hook, ignoring its exceptions. */
export function callHook<E>(hook: ((event: E) => void) | undefined, event: E): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch {
    // Observability must never change a payment's outcome (see PaykitHooks).
  }
}
