import {
  DEFAULT_FRESH_WINDOW_MS,
  DEFAULT_STATUS_TTL_MS,
  deliver,
  isFinalStatus,
  positiveMs,
  updatedAtMs,
} from "./status-codec.js";
import type { PaymentStatus, PaymentStatusStore, Unsubscribe } from "./store.js";

/** Options of {@link memoryStatusStore}. */
export interface MemoryStatusStoreOptions {
  /**
   * How long a status is remembered after its last write, in milliseconds.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /** The poll-free window of a fresh `publish` that names no `pollIntervalMs`, in milliseconds. @default 2_000 */
  pollIntervalMs?: number;
  /**
   * The most payin ids remembered at once; past it the least recently written are forgotten first
   * (they are read from the service again when asked for).
   * @default 100_000
   */
  maxEntries?: number;
  /** Called with what a listener throws (it stops neither the others nor the store). @default ignores it */
  onError?: (error: unknown) => void;
}

const STORE = "memoryStatusStore";

interface Remembered {
  status: PaymentStatus;
  updatedAtMs: number;
  expiresAt: number;
}

/** A Map used as a bounded cache: re-set entries move to the end, the oldest go first. */
function setBounded<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next().value as string;
    map.delete(oldest);
  }
}

/**
 * The in-process {@link PaymentStatusStore}, the default of `createPaymentStatus`: statuses and poll
 * windows live in this process, so it serves one instance. With several instances behind a load
 * balancer use `redisStatusStore` (`@paykit/node/checkout/redis`) or `postgresStatusStore`
 * (`@paykit/node/checkout/postgres`), or a webhook reaching one instance never reaches the shoppers
 * watching on another (they still see it, one poll interval later).
 *
 * @example
 * ```ts
 * const status = createPaymentStatus({ paykit, authorize, store: memoryStatusStore({ ttlMs: 600_000 }) });
 * ```
 */
export function memoryStatusStore(options: MemoryStatusStoreOptions = {}): PaymentStatusStore {
  return new MemoryStatusStore(options);
}

class MemoryStatusStore implements PaymentStatusStore {
  readonly #statuses = new Map<string, Remembered>();
  /** Until when (epoch ms) nobody may poll an id. */
  readonly #pollWindows = new Map<string, number>();
  readonly #listeners = new Set<(status: PaymentStatus) => void>();
  readonly #ttlMs: number;
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #onError: (error: unknown) => void;

  constructor(options: MemoryStatusStoreOptions) {
    this.#ttlMs = positiveMs(options.ttlMs, DEFAULT_STATUS_TTL_MS, "ttlMs", STORE);
    this.#windowMs = positiveMs(options.pollIntervalMs, DEFAULT_FRESH_WINDOW_MS, "pollIntervalMs", STORE);
    const { maxEntries = 100_000 } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(`${STORE}: maxEntries must be a positive integer`);
    }
    this.#maxEntries = maxEntries;
    this.#onError = options.onError ?? (() => undefined);
  }

  async publish(status: PaymentStatus, options: { fresh?: boolean; pollIntervalMs?: number } = {}) {
    const ms = updatedAtMs(status, STORE);
    const now = Date.now();
    if (options.fresh === true) {
      const until = now + (options.pollIntervalMs ?? this.#windowMs);
      if ((this.#pollWindows.get(status.id) ?? 0) < until) {
        setBounded(this.#pollWindows, status.id, until, this.#maxEntries);
      }
    }
    const current = this.#current(status.id, now);
    // The same rule as the shared stores: a final status stays, and an older one never replaces a newer.
    if (current && (isFinalStatus(current.status.status) || current.updatedAtMs > ms)) return;
    const copy = { ...status };
    setBounded(
      this.#statuses,
      status.id,
      { status: copy, updatedAtMs: ms, expiresAt: now + this.#ttlMs },
      this.#maxEntries,
    );
    // Delivered after the caller's await, as a network store would: a listener never runs inside publish.
    const listeners = [...this.#listeners];
    queueMicrotask(() => deliver(listeners, { ...copy }, this.#onError));
  }

  async subscribe(listener: (status: PaymentStatus) => void): Promise<Unsubscribe> {
    // Each subscription is its own entry, so one listener subscribed twice is called twice.
    const entry = (status: PaymentStatus) => listener(status);
    this.#listeners.add(entry);
    return async () => {
      this.#listeners.delete(entry);
    };
  }

  async latest(id: string): Promise<PaymentStatus | null> {
    const current = this.#current(id, Date.now());
    return current ? { ...current.status } : null;
  }

  async claimPoll(id: string, intervalMs: number): Promise<boolean> {
    const now = Date.now();
    if ((this.#pollWindows.get(id) ?? 0) > now) return false;
    setBounded(this.#pollWindows, id, now + Math.max(1, intervalMs), this.#maxEntries);
    return true;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#statuses.clear();
    this.#pollWindows.clear();
  }

  #current(id: string, now: number): Remembered | undefined {
    const current = this.#statuses.get(id);
    if (current && current.expiresAt <= now) {
      this.#statuses.delete(id);
      return undefined;
    }
    return current;
  }
}
