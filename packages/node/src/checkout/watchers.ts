import { type PollSchedule, pollDelay } from "../resources/poll-schedule.js";
import type { StatusStream } from "./sse.js";
import type { PaymentStatus } from "./store.js";

/** What the instance does when a watched payin is due for a poll; resolves with a `Retry-After` in ms, if any. */
export type PollPayin = (payinId: string, intervalMs: number) => Promise<number | undefined>;

/** How the instance's watchers are set up. */
export interface WatchersInit {
  schedule: PollSchedule;
  keepAliveMs: number;
  poll: PollPayin;
}

/** The open streams of one payin on this instance, and its poll timer. */
interface Watch {
  readonly streams: Set<StatusStream>;
  timer: ReturnType<typeof setTimeout> | undefined;
  attempt: number;
}

/** Node and Bun timers keep a process alive unless unref'd; an idle status endpoint must not. */
function unref(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

/**
 * Every open status stream of this instance, grouped by payin: a status for an id reaches its streams,
 * each watched id has one poll timer (slowing from the schedule's first interval to its longest), and
 * one keep-alive timer serves every stream. When the last stream of an id ends, its timer goes with it;
 * when the last stream ends, the keep-alive does too.
 */
export class Watchers {
  readonly #watches = new Map<string, Watch>();
  readonly #init: WatchersInit;
  #open = 0;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(init: WatchersInit) {
    this.#init = init;
  }

  /** Open streams on this instance. */
  get openStreams(): number {
    return this.#open;
  }

  /** Payins with at least one open stream (each has one poll timer). */
  get watchedPayins(): number {
    return this.#watches.size;
  }

  /** Starts reporting `stream`'s payin to it. */
  add(stream: StatusStream): void {
    let watch = this.#watches.get(stream.payinId);
    if (!watch) {
      watch = { streams: new Set(), timer: undefined, attempt: 0 };
      this.#watches.set(stream.payinId, watch);
      this.#schedule(stream.payinId, watch);
    }
    watch.streams.add(stream);
    this.#open++;
    if (this.#keepAlive === undefined) {
      this.#keepAlive = setInterval(() => this.#sendKeepAlive(), this.#init.keepAliveMs);
      unref(this.#keepAlive);
    }
  }

  /** Stops reporting to `stream` (it ended); frees its payin's timer when it was the last. */
  remove(stream: StatusStream): void {
    const watch = this.#watches.get(stream.payinId);
    if (!watch?.streams.delete(stream)) return;
    this.#open--;
    if (watch.streams.size === 0) {
      clearTimeout(watch.timer);
      this.#watches.delete(stream.payinId);
    }
    if (this.#open === 0) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }

  /** Hands `status` to every stream of its payin on this instance. */
  deliver(status: PaymentStatus): void {
    const watch = this.#watches.get(status.id);
    if (!watch) return;
    for (const stream of [...watch.streams]) stream.offer(status);
  }

  /** Ends every stream (each removes itself, and with the last one every timer goes). */
  closeAll(): void {
    for (const watch of [...this.#watches.values()]) for (const stream of [...watch.streams]) stream.close();
  }

  #sendKeepAlive(): void {
    for (const watch of [...this.#watches.values()])
      for (const stream of [...watch.streams]) stream.keepAlive();
  }

  #schedule(payinId: string, watch: Watch, retryAfterMs = 0): void {
    const delay = Math.max(pollDelay(watch.attempt++, this.#init.schedule), retryAfterMs);
    watch.timer = setTimeout(async () => {
      const retryAfter = await this.#init.poll(payinId, delay).catch(() => undefined);
      // Polled while streams came and went: only a watch that still exists goes on.
      if (this.#watches.get(payinId) === watch) this.#schedule(payinId, watch, retryAfter);
    }, delay);
    unref(watch.timer);
  }
}
