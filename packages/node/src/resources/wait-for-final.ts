import type { Payin } from "@paykit/contract";
import { isFinalPayinStatus, type PayinStatus } from "@paykit/contract/rules";
import { type AnswerSlot, answerOf, composite, copyAnswer, type PaykitPromise } from "../core/api-promise.js";
import { PaykitConfigError } from "../errors/validation-error.js";
import { PaymentWaitTimeoutError } from "../errors/wait-timeout-error.js";
import {
  DEFAULT_POLL_SCHEDULE,
  isTransientReadError,
  type PollSchedule,
  pollDelay,
  retryAfterOf,
} from "./poll-schedule.js";
import { type PayinStatusHint, type PayinStatusHub, statusHubOf } from "./status-hub.js";

/** The statuses no payin leaves: APPROVED, REFUSED and EXPIRED (docs/payins.md, the status table). */
export type FinalPayinStatus = "APPROVED" | "REFUSED" | "EXPIRED";

/** A payin record whose status is final: what `payins.waitForFinal` resolves with. */
export type FinalPayin = Payin & { status: FinalPayinStatus };

/** Options of `paykit.payins.waitForFinal`. */
export interface WaitForFinalOptions {
  /** Stops waiting for this caller: the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * How long to wait before rejecting with a `PaymentWaitTimeoutError`, in ms; `Infinity` waits until
   * the payin is final (a PIX expires after 1 h, a boleto after its due date).
   * @default 600000 (10 minutes)
   */
  timeoutMs?: number;
  /**
   * The first interval between two reads of the payin, in ms; it grows by half each read up to
   * `maxPollIntervalMs`. Waits for the same id share one poll, at the quickest pace any of them asked for.
   * @default 2000
   */
  pollIntervalMs?: number;
  /**
   * The longest interval between two reads, in ms.
   * @default 10000 (or `pollIntervalMs` when that is longer)
   */
  maxPollIntervalMs?: number;
}

/** The default `timeoutMs` of a wait, in ms. */
export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
const MAX_TIMER_MS = 2_147_483_647;

/** Reads one payin from the API; the loop aborts `signal` when nobody waits any more. */
export type ReadPayin = (id: string, signal: AbortSignal) => Promise<Payin>;

interface Waiter {
  /** `answer` is the read that saw the payin final, for `withResponse()`. */
  resolve(payin: FinalPayin, answer: AnswerSlot): void;
  reject(error: unknown): void;
}

function isFinalPayin(payin: Payin): payin is FinalPayin {
  return isFinalPayinStatus(payin.status);
}

function checkMs(name: string, value: unknown, fallback: number, allowInfinity = false): number {
  if (value === undefined) return fallback;
  if (allowInfinity && value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    const also = allowInfinity ? " (or Infinity)" : "";
    throw new PaykitConfigError(
      "INVALID_OPTION",
      `${name} must be an integer from 1 to ${MAX_TIMER_MS}${also}.`,
    );
  }
  return value;
}

/**
 * One poll of one payin, shared by every caller waiting for it on this client: 100 waiters make one
 * request per interval, not 100. It reads as soon as it is started, then on the schedule (the quickest
 * any waiter asked for, and never before the service's `Retry-After`), and at once again when a
 * verified webhook says the payin is final.
 */
class PollLoop {
  readonly waiters = new Set<Waiter>();
  /** The last status read, for the timeout's message. */
  lastStatus: PayinStatus | undefined;
  /** The id of the last read sent, for the timeout's `requestId`. */
  lastRequestId: string | undefined;
  readonly #id: string;
  readonly #read: ReadPayin;
  #schedule: PollSchedule;
  readonly #onEnd: () => void;
  readonly #controller = new AbortController();
  readonly #unlisten: () => void;
  /** The next read's timer (none while a read is in flight), when it was set, and its Retry-After floor. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedAt = 0;
  #retryAfterMs = 0;
  #attempt = 0;
  #reading = false;
  /** A final hint arrived during a read: read again as soon as it ends. */
  #again = false;
  #lastHint: string | undefined;
  #stopped = false;

  constructor(id: string, read: ReadPayin, schedule: PollSchedule, hub: PayinStatusHub, onEnd: () => void) {
    this.#id = id;
    this.#read = read;
    this.#schedule = schedule;
    this.#onEnd = onEnd;
    this.#unlisten = hub.listen(id, (hint) => this.#onHint(hint));
  }

  /** The first read: called once the first waiter is in, so even a read that throws at once reaches it. */
  start(): void {
    void this.#poll();
  }

  /** Adds `waiter`; one that asks for quicker reads than the loop makes gets them (and so does everyone). */
  join(waiter: Waiter, schedule: PollSchedule): void {
    this.waiters.add(waiter);
    const initialMs = Math.min(this.#schedule.initialMs, schedule.initialMs);
    const maxMs = Math.min(this.#schedule.maxMs, schedule.maxMs);
    if (initialMs === this.#schedule.initialMs && maxMs === this.#schedule.maxMs) return;
    this.#schedule = { initialMs, maxMs };
    if (this.#timer === undefined) return; // a read is in flight: the next delay follows the new schedule
    // The pending read comes when the quicker schedule would have made it (at once if that has passed).
    const delay = Math.max(pollDelay(this.#attempt - 1, this.#schedule), this.#retryAfterMs);
    clearTimeout(this.#timer);
    this.#arm(Math.max(0, this.#armedAt + delay - Date.now()), this.#retryAfterMs, this.#armedAt);
  }

  leave(waiter: Waiter): void {
    this.waiters.delete(waiter);
    if (this.waiters.size === 0) this.#stop();
  }

  #onHint(hint: PayinStatusHint): void {
    // Only a final status is news for a waiter; the same one told twice (webhook, then store) wakes once.
    const key = `${hint.status}.${hint.updatedAt}`;
    if (this.#stopped || !isFinalPayinStatus(hint.status) || key === this.#lastHint) return;
    this.#lastHint = key;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    void this.#poll();
  }

  #arm(delay: number, retryAfterMs: number, armedAt = Date.now()): void {
    this.#armedAt = armedAt;
    this.#retryAfterMs = retryAfterMs;
    this.#timer = setTimeout(() => void this.#poll(), Math.min(delay, MAX_TIMER_MS));
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    this.#reading = true;
    let delay: number;
    let retryAfterMs = 0;
    try {
      const reading = this.#read(this.#id, this.#controller.signal);
      const payin = await reading;
      if (this.#stopped) return;
      const answer = answerOf(reading);
      this.lastStatus = payin.status;
      this.lastRequestId = answer.requestId;
      if (isFinalPayin(payin)) return this.#finish((waiter) => waiter.resolve(payin, answer));
      delay = pollDelay(this.#attempt++, this.#schedule);
    } catch (error) {
      if (this.#stopped) return;
      this.lastRequestId = (error as { requestId?: string } | null)?.requestId ?? this.lastRequestId;
      // A 404, a key problem or a bug will not heal by waiting: every waiter gets the error.
      if (!isTransientReadError(error)) return this.#finish((waiter) => waiter.reject(error));
      retryAfterMs = retryAfterOf(error) ?? 0;
      delay = Math.max(pollDelay(this.#attempt++, this.#schedule), retryAfterMs);
    } finally {
      this.#reading = false;
    }
    if (this.#again) {
      this.#again = false;
      delay = 0;
    }
    this.#arm(delay, retryAfterMs);
  }

  #finish(settle: (waiter: Waiter) => void): void {
    const waiters = [...this.waiters];
    this.#stop();
    for (const waiter of waiters) settle(waiter);
  }

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#controller.abort();
    this.#unlisten();
    this.#onEnd();
  }
}

/** Every `waitForFinal` of one client: one {@link PollLoop} per payin id being waited for. */
export class PayinWaits {
  readonly #loops = new Map<string, PollLoop>();
  readonly #read: ReadPayin;
  readonly #hub: PayinStatusHub;

  constructor(read: ReadPayin, hub: PayinStatusHub) {
    this.#read = read;
    this.#hub = hub;
  }

  /** How many payins have a poll running (for tests: none may stay behind). */
  get activePolls(): number {
    return this.#loops.size;
  }

  /** Resolves with the payin once final; see `Payins.waitForFinal`. */
  wait(id: string, options: WaitForFinalOptions = {}): PaykitPromise<FinalPayin> {
    return composite((slot) => this.#wait(id, options, slot));
  }

  #wait(id: string, options: WaitForFinalOptions, slot: AnswerSlot): Promise<FinalPayin> {
    const { signal } = options;
    let timeoutMs: number;
    let schedule: PollSchedule;
    try {
      timeoutMs = checkMs("timeoutMs", options.timeoutMs, DEFAULT_WAIT_TIMEOUT_MS, true);
      const initialMs = checkMs("pollIntervalMs", options.pollIntervalMs, DEFAULT_POLL_SCHEDULE.initialMs);
      const maxMs = checkMs("maxPollIntervalMs", options.maxPollIntervalMs, DEFAULT_POLL_SCHEDULE.maxMs);
      schedule = { initialMs, maxMs: Math.max(initialMs, maxMs) };
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<FinalPayin>((resolve, reject) => {
      let loop = this.#loops.get(id);
      const starting = loop === undefined;
      if (!loop) {
        loop = new PollLoop(id, this.#read, schedule, this.#hub, () => {
          if (this.#loops.get(id) === loop) this.#loops.delete(id);
        });
        this.#loops.set(id, loop);
      }
      const joined = loop;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter = {
        resolve: (payin, answer) => {
          cleanUp();
          copyAnswer(slot, answer);
          resolve(payin);
        },
        reject: (error) => {
          cleanUp();
          reject(error);
        },
      };
      const leave = (error: unknown) => {
        cleanUp();
        joined.leave(waiter);
        reject(error);
      };
      const onAbort = () => leave(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(
          () => leave(new PaymentWaitTimeoutError(id, timeoutMs, joined.lastStatus, joined.lastRequestId)),
          timeoutMs,
        );
      }
      joined.join(waiter, schedule);
      if (starting) joined.start();
    });
  }
}

const WAITS = Symbol.for("@paykit/node.payinWaits");

/** The waits of a client's `payins` resource, made on first use with `read` as its way to read a payin. */
export function payinWaitsOf(payins: object, read: ReadPayin): PayinWaits {
  const holder = payins as { [WAITS]?: PayinWaits };
  let waits = holder[WAITS];
  if (!waits) {
    waits = new PayinWaits(read, statusHubOf(payins));
    Object.defineProperty(payins, WAITS, { value: waits, enumerable: false });
  }
  return waits;
}
