import type { Lane } from "../internal/lane.js";
import type { MockClock } from "./clock.js";
import type { PayinRecord } from "./records.js";
import { Scheduler } from "./scheduler.js";

/**
 * An account's own test clock and schedule (issue 15, isolation for teams): the sandbox clock plus the
 * account's offset. Every time an account's records carry, and every expiry, reserve release and
 * webhook retry of its records, runs on this clock, so one test run moving its account's clock never
 * moves another's. Moving the sandbox clock (`POST /_mock/clock`) moves every account with it.
 */
export class AccountTime {
  /** The account's clock minus the sandbox clock, in ms. */
  offsetMs = 0;
  readonly scheduler: Scheduler;
  /** PIX payins' expiries, all the same time after creation, so in creation order: no task per payin. */
  readonly pixExpiries: Lane<PayinRecord>;

  constructor(
    readonly sandbox: MockClock,
    expire: (payin: PayinRecord) => void,
  ) {
    this.scheduler = new Scheduler(this);
    this.pixExpiries = this.scheduler.lane(expire);
  }

  /** The account's time in epoch ms. */
  now(): number {
    return this.sandbox.now() + this.offsetMs;
  }

  /** Sets the account's time; it keeps moving with the sandbox clock from there. */
  set(epochMs: number): void {
    this.offsetMs = epochMs - this.sandbox.now();
  }

  /** Moves the account's time forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
