/**
 * The mock's clock: starts at real time and moves forward with it, unless a test sets or advances it
 * (DESIGN.md section 6, Time). Expiry, payout limits, reserves and webhook retries all read it.
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

  /** Back to real time. */
  reset(): void {
    this.#offsetMs = 0;
  }
}
