import { dateTimeBounds } from "@paykit/contract";

/** Earliest time the mock clock takes: 1970-01-01T00:00:00.000Z. */
export const CLOCK_MIN_MS = 0;
/** Latest time the mock clock takes: 9999-12-31T23:59:59.999Z (far inside the `Date` range). */
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The epoch ms of an ISO 8601 date or date-time of the control API, read by the contract as the API's
 * date filters are: a date alone is its UTC midnight, a date-time without a zone is UTC, a leap second
 * is the next day's first millisecond. `NaN` when it is not one.
 */
export function clockTimeOf(iso: string): number {
  return dateTimeBounds(iso)?.from ?? Number.NaN;
}

/**
 * The mock's clock: starts at real time and moves forward with it, unless a test sets or advances it
 * (docs/decisions/time-and-the-mock-clock.md). Expiry, payout limits, reserves and webhook
 * retries all read it.
 */
export class MockClock {
  #offsetMs = 0;
  readonly #realNow: () => number;

  constructor(realNow: () => number = Date.now) {
    this.#realNow = realNow;
  }

  /** The mock time in epoch milliseconds. */
  now(): number {
    return this.#realNow() + this.#offsetMs;
  }

  /** Sets the mock time; it keeps moving with real time from there. */
  set(epochMs: number): void {
    this.#offsetMs = epochMs - this.#realNow();
  }

  /** Moves the mock time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  /** The mock time minus real time, in ms (what a durable store saves). */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Puts back a saved offset from real time. */
  set offsetMs(ms: number) {
    this.#offsetMs = ms;
  }

  /** Back to real time. */
  reset(): void {
    this.#offsetMs = 0;
  }
}
