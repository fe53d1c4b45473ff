import type { WebhookEvent } from "./event.js";

/**
 * Where a receiver remembers the deliveries it has handled, so a retried delivery is not acted on
 * twice. Back it with Redis (`SET key 1 NX PX ttl`) or a database unique key across instances.
 */
export interface WebhookDedupStore {
  /** Records `key` for `ttlMs` milliseconds; true when it was not recorded yet (first delivery). */
  claim(key: string, ttlMs: number): boolean | Promise<boolean>;
  /** Forgets `key`, so the sender's next retry is handled again (the handler failed). */
  release(key: string): void | Promise<void>;
}

/** Options of {@link MemoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /** The clock, in ms since the epoch, for tests. @default () => Date.now() */
  now?: () => number;
  /** Most keys kept; the oldest are forgotten beyond it. @default 100000 */
  maxEntries?: number;
}

/** An in-process {@link WebhookDedupStore} with per-key expiry; one server instance only. */
export class MemoryDedupStore implements WebhookDedupStore {
  readonly #expiries = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: MemoryDedupStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Records `key` until `ttlMs` from now; true when it was absent or expired. */
  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    const expiry = this.#expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    this.#expiries.delete(key);
    this.#expiries.set(key, now + ttlMs);
    this.#evict(now);
    return true;
  }

  /** Forgets `key`. */
  release(key: string): void {
    this.#expiries.delete(key);
  }

  /** Number of keys currently remembered (expired ones may linger until the next claim). */
  get size(): number {
    return this.#expiries.size;
  }

  #evict(now: number): void {
    // Map keeps insertion order, so the first entries are the oldest claims.
    for (const [key, expiry] of this.#expiries) {
      if (this.#expiries.size <= this.#maxEntries && expiry > now) break;
      this.#expiries.delete(key);
    }
  }
}

/** Options of {@link WebhookDeduplicator}. */
export interface WebhookDeduplicatorOptions {
  /** Where handled deliveries are remembered. @default new MemoryDedupStore() */
  store?: WebhookDedupStore;
  /**
   * How long a delivery is remembered, in ms. Paykit retries a delivery for about 4.6 hours
   * (DESIGN.md: Webhooks), so the default covers every retry with margin.
   * @default 86400000 (24 h)
   */
  ttlMs?: number;
}

/** What {@link WebhookDeduplicator.handle} did with a delivery. */
export type DedupOutcome<T> = { duplicate: false; result: T } | { duplicate: true };

/**
 * The key a delivery is remembered by: its `webhook-id` (stable across retries of one event), or,
 * for unsigned deliveries without it, the resource, its status and update time.
 */
export function webhookDedupKey(event: WebhookEvent): string {
  if (event.webhookId) return `webhook:${event.webhookId}`;
  return `${event.kind}:${event.id}:${String(event.data.status)}:${event.data.updatedAt}`;
}

/**
 * Runs a webhook handler at most once per delivery, so a retried delivery never fulfils an order
 * or books a payout twice. A handler that throws releases the key: the sender's retry then runs it
 * again, so nothing is lost.
 *
 * @example
 * ```ts
 * const dedup = new WebhookDeduplicator();
 * const outcome = await dedup.handle(event, async (e) => fulfil(e));
 * return new Response(null, { status: outcome.duplicate ? 200 : 204 });
 * ```
 */
export class WebhookDeduplicator {
  readonly #store: WebhookDedupStore;
  readonly #ttlMs: number;

  constructor(options: WebhookDeduplicatorOptions = {}) {
    this.#store = options.store ?? new MemoryDedupStore();
    this.#ttlMs = options.ttlMs ?? 86_400_000;
  }

  /** Runs `handler` unless this delivery was already handled (or is being handled right now). */
  async handle<T>(
    event: WebhookEvent,
    handler: (event: WebhookEvent) => T | Promise<T>,
  ): Promise<DedupOutcome<T>> {
    const key = webhookDedupKey(event);
    if (!(await this.#store.claim(key, this.#ttlMs))) return { duplicate: true };
    try {
      return { duplicate: false, result: await handler(event) };
    } catch (error) {
      await this.#store.release(key);
      throw error;
    }
  }
}
