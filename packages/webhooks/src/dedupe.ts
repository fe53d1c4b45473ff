/**
 * Run each webhook delivery's handler at most once, across every instance of a receiver: the
 * deduplicator and its in-memory store, without the parsers (no schema is loaded).
 *
 * @packageDocumentation
 * @module @paykit/webhooks/dedupe
 */
import type { WebhookEvent } from "./event.js";
import { keepLease, positiveMs } from "./internal/lease.js";

/**
 * What a store answers when a delivery begins: `started` (this attempt now holds the lease and runs
 * the handler), `in-progress` (another attempt holds a live lease), `done` (handled before).
 */
export type DedupBeginResult = "started" | "in-progress" | "done";

/**
 * Where a receiver remembers deliveries, shared by every instance that receives them. A key is either
 * *in progress* (a lease owned by one attempt's `token`, which expires so a crashed process never blocks
 * the event) or *done* (kept for a TTL). Each operation must be atomic in the store.
 * Implementations: {@link MemoryDedupStore} (one process), `RedisDedupStore` from
 * `@paykit/webhooks/redis`, `PostgresDedupStore` from `@paykit/webhooks/postgres`.
 */
export interface WebhookDedupStore {
  /**
   * Takes the lease of `key` for `leaseMs` when the key is absent or its lease expired (`started`);
   * otherwise tells whether another attempt holds it (`in-progress`) or it is `done`.
   */
  begin(key: string, token: string, leaseMs: number): DedupBeginResult | Promise<DedupBeginResult>;
  /** Extends the lease while the handler runs; false when `token` no longer holds it. */
  renew(key: string, token: string, leaseMs: number): boolean | Promise<boolean>;
  /** Marks `key` done for `ttlMs`: later deliveries of it are duplicates. */
  complete(key: string, token: string, ttlMs: number): void | Promise<void>;
  /** Gives the lease up (the handler failed) so the sender's next retry runs; only `token`'s own lease. */
  release(key: string, token: string): void | Promise<void>;
}

/** Options of {@link MemoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /** The clock, in ms since the epoch, for tests. @default () => Date.now() */
  now?: () => number;
  /** Most keys kept; the oldest are forgotten beyond it. @default 100000 */
  maxEntries?: number;
}

interface MemoryEntry {
  /** The lease owner's token while in progress; null once done. */
  token: string | null;
  expiresAt: number;
}

/** An in-process {@link WebhookDedupStore} with per-key expiry; one server instance only. */
export class MemoryDedupStore implements WebhookDedupStore {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: MemoryDedupStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Takes the lease of `key` unless it is held or done. */
  begin(key: string, token: string, leaseMs: number): DedupBeginResult {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) return entry.token === null ? "done" : "in-progress";
    this.#entries.delete(key);
    this.#entries.set(key, { token, expiresAt: now + leaseMs });
    this.#evict(now);
    return "started";
  }

  /** Extends `token`'s lease. */
  renew(key: string, token: string, leaseMs: number): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.token !== token) return false;
    entry.expiresAt = this.#now() + leaseMs;
    return true;
  }

  /** Marks `key` done for `ttlMs`. */
  complete(key: string, _token: string, ttlMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { token: null, expiresAt: this.#now() + ttlMs });
    this.#evict(this.#now());
  }

  /** Frees `token`'s lease; a lease taken over by another attempt is left alone. */
  release(key: string, token: string): void {
    if (this.#entries.get(key)?.token === token) this.#entries.delete(key);
  }

  /** Number of keys currently remembered (expired ones may linger until the next write). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(now: number): void {
    // Map keeps insertion order, so the first entries are the oldest writes.
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
  }
}

/** Options of {@link WebhookDeduplicator}. */
export interface WebhookDeduplicatorOptions {
  /** Where deliveries are remembered; share one store between instances. @default new MemoryDedupStore() */
  store?: WebhookDedupStore;
  /**
   * How long an attempt holds a delivery while its handler runs, in ms. The lease is renewed every
   * third of it while the handler runs, so only a process that died loses it: the next retry then runs.
   * @default 60000
   */
  leaseMs?: number;
  /**
   * How long a handled delivery is remembered, in ms. Paykit retries a delivery for about 4.6 hours
   * (docs/decisions/webhooks.md), so the default covers every retry with margin.
   * @default 86400000 (24 h)
   */
  ttlMs?: number;
}

/**
 * What {@link WebhookDeduplicator.handle} did with a delivery, and how to answer the sender:
 * `handled` (2xx), `duplicate` (handled before: 2xx, so the sender stops), `in-progress` (another
 * attempt is running it right now: answer a retryable status such as 409, never 2xx, or the event
 * is lost if that attempt fails).
 */
export type DedupOutcome<T> =
  | { status: "handled"; result: T }
  | { status: "duplicate" }
  | { status: "in-progress" };

/**
 * The key a delivery is remembered by: its `webhook-id` (stable across retries of one event), or,
 * for unsigned deliveries without it, the resource, its status and update time.
 */
export function webhookDedupKey(event: WebhookEvent): string {
  if (event.webhookId) return `webhook:${event.webhookId}`;
  return `${event.kind}:${event.id}:${String(event.data.status)}:${event.data.updatedAt}`;
}

/**
 * Runs a webhook handler at most once per delivery, across every instance sharing the store, and never
 * loses one: a retry that arrives while an attempt runs is told `in-progress` (answer 409 so it comes
 * back), a handler that throws releases the delivery so the next retry runs it, and a process that dies
 * mid-handler loses its lease when it expires.
 *
 * @example
 * ```ts
 * const dedup = new WebhookDeduplicator({ store: new MemoryDedupStore() });
 * const outcome = await dedup.handle(event, async (e) => fulfil(e));
 * return new Response(null, { status: outcome.status === "in-progress" ? 409 : 204 });
 * ```
 */
export class WebhookDeduplicator {
  readonly #store: WebhookDedupStore;
  readonly #leaseMs: number;
  readonly #ttlMs: number;

  constructor(options: WebhookDeduplicatorOptions = {}) {
    this.#store = options.store ?? new MemoryDedupStore();
    this.#leaseMs = positiveMs(options.leaseMs, 60_000, "WebhookDeduplicator", "leaseMs");
    this.#ttlMs = positiveMs(options.ttlMs, 86_400_000, "WebhookDeduplicator", "ttlMs");
  }

  /** Runs `handler` unless this delivery was handled before or another attempt is running it now. */
  async handle<T>(
    event: WebhookEvent,
    handler: (event: WebhookEvent) => T | Promise<T>,
  ): Promise<DedupOutcome<T>> {
    const key = webhookDedupKey(event);
    const token = crypto.randomUUID();
    const begun = await this.#store.begin(key, token, this.#leaseMs);
    if (begun === "done") return { status: "duplicate" };
    if (begun === "in-progress") return { status: "in-progress" };
    // a long handler keeps its delivery
    const stopRenewing = keepLease(() => this.#store.renew(key, token, this.#leaseMs), this.#leaseMs);
    let result: T;
    try {
      result = await handler(event);
    } catch (error) {
      stopRenewing();
      await this.#store.release(key, token);
      throw error;
    }
    stopRenewing();
    await this.#store.complete(key, token, this.#ttlMs);
    return { status: "handled", result };
  }
}
