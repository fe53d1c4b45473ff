/** How polling for a payin's status slows down while nothing changes. */
export interface PollSchedule {
  /** The first interval, in ms. */
  initialMs: number;
  /** The longest interval, in ms. */
  maxMs: number;
}

/** 2 s, then 3 s, 4.5 s, 6.75 s, then every 10 s: quick while a shopper is likely paying, cheap after. */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = { initialMs: 2_000, maxMs: 10_000 };

/** The wait before poll number `attempt` (0 = the wait after the first read), in ms. */
export function pollDelay(attempt: number, schedule: PollSchedule): number {
  return Math.min(schedule.maxMs, Math.round(schedule.initialMs * 1.5 ** attempt));
}

/** The delay an error asks for (`retryAfterMs` of a RateLimitError or a 503), if any. */
export function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Whether a failed status read is worth repeating later: no answer, a timeout, 408, 429 or a 5xx.
 * A 404 (unknown id), 401/403 (keys) or any other 4xx will fail the same way every time.
 */
export function isTransientReadError(error: unknown): boolean {
  const { name, status } = (error ?? {}) as { name?: unknown; status?: unknown };
  if (name === "PaykitConnectionError" || name === "PaykitTimeoutError" || name === "RateLimitError")
    return true;
  return (
    typeof status === "number" && (status === 408 || status === 429 || (status >= 500 && status !== 501))
  );
}
