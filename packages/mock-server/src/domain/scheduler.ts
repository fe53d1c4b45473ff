/** What a schedule reads the time from: the sandbox clock, or an account's. */
export interface Clock {
  now(): number;
}

import { MinHeap } from "../internal/heap.js";
import { Lane } from "../internal/lane.js";

/** Work due at a moment of the mock clock (an expiry, a reserve release, a webhook retry). */
export interface ScheduledTask {
  at: number;
  seq: number;
  run: (arg: never) => void;
  /** What `run` is called with: a shared `run` plus an argument costs no closure per task. */
  arg: unknown;
  cancelled: boolean;
}

// setTimeout takes at most a signed 32-bit delay.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Runs work at mock-clock moments. Due work runs before every request and on a real timer armed for
 * the earliest task, so a moved clock and a quiet server both see expiries and retries on time.
 */
export class Scheduler {
  readonly #clock: Clock;
  readonly #heap = new MinHeap<ScheduledTask>();
  readonly #lanes: Lane<never>[] = [];
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #stopped = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Runs `run(arg)` once the mock clock reaches `at` (epoch ms). Work scheduled for every payin
   * passes one shared function and the payin, rather than a new closure each time.
   */
  schedule(at: number, run: () => void): ScheduledTask;
  schedule<T>(at: number, run: (arg: T) => void, arg: T): ScheduledTask;
  schedule(at: number, run: (arg: never) => void, arg?: unknown): ScheduledTask {
    const task: ScheduledTask = { at, seq: this.#seq++, run, arg, cancelled: false };
    this.#heap.push(task);
    if (at < this.#armedAt) this.arm();
    return task;
  }

  /**
   * A lane for one kind of work scheduled per item, such as every PIX payin's expiry: see
   * {@link Lane}. Items go in with {@link scheduleIn}.
   */
  lane<T>(run: (item: T) => void): Lane<T> {
    const lane = new Lane(run);
    this.#lanes.push(lane as unknown as Lane<never>);
    return lane;
  }

  /**
   * Runs `lane.run(item)` once the mock clock reaches `at`, in the same order as {@link schedule}
   * would; not cancellable. An item out of the lane's order (the clock was set back) becomes a task.
   */
  scheduleIn<T>(lane: Lane<T>, at: number, item: T): void {
    if (!lane.accepts(at)) {
      this.schedule(at, lane.run, item);
      return;
    }
    lane.push(at, this.#seq++, item);
    if (at < this.#armedAt) this.arm();
  }

  /** Runs every task that is due on the mock clock, oldest first. */
  runDue(): void {
    const now = this.#clock.now();
    for (;;) {
      const top = this.#heap.peek();
      const lane = this.#firstLane();
      if (lane !== undefined && lane.headAt <= now && (top === undefined || laneFirst(lane, top))) {
        (lane.run as (item: unknown) => void)(lane.shift());
      } else if (top !== undefined && top.at <= now) {
        this.#heap.pop();
        if (!top.cancelled) (top.run as (arg: unknown) => void)(top.arg);
      } else {
        return;
      }
    }
  }

  // The lane whose head comes first, if any lane holds work.
  #firstLane(): Lane<never> | undefined {
    let first: Lane<never> | undefined;
    for (const lane of this.#lanes) {
      if (lane.headAt === Number.POSITIVE_INFINITY) continue;
      if (
        first === undefined ||
        lane.headAt < first.headAt ||
        (lane.headAt === first.headAt && lane.headSeq < first.headSeq)
      )
        first = lane;
    }
    return first;
  }

  /** Re-arms the real timer for the earliest task (after the clock moved or tasks were added). */
  arm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    if (this.#stopped) return;
    const at = this.nextAt();
    if (at === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_MS);
    this.#armedAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#armedAt = Number.POSITIVE_INFINITY;
      this.runDue();
      this.arm();
    }, delay);
    unrefTimer(this.#timer);
  }

  /** When the earliest task is due on the mock clock (epoch ms); Infinity when none waits. */
  nextAt(): number {
    let top = this.#heap.peek();
    while (top?.cancelled) {
      this.#heap.pop();
      top = this.#heap.peek();
    }
    return Math.min(
      top?.at ?? Number.POSITIVE_INFINITY,
      this.#firstLane()?.headAt ?? Number.POSITIVE_INFINITY,
    );
  }

  /** Drops every task and the timer. */
  clear(): void {
    this.#heap.clear();
    for (const lane of this.#lanes) lane.clear();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
  }

  /** Stops for good (engine closed). */
  stop(): void {
    this.#stopped = true;
    this.clear();
  }
}

function laneFirst(lane: Lane<never>, task: ScheduledTask): boolean {
  return lane.headAt < task.at || (lane.headAt === task.at && lane.headSeq < task.seq);
}

/** Keeps a timer from holding a Node process open; a no-op where timers are plain numbers. */
export function unrefTimer(timer: unknown): void {
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") {
    timer.unref();
  }
}
