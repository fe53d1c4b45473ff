import { type OrderClaim, type OrderState, type OrderVerdict, webhookOrderVerdict } from "./order-rules.js";

/**
 * What a store answers when an event's attempt begins: `started` (it moves the resource forward and
 * this attempt now holds the resource's lease; `previous` is what was known, null when nothing was),
 * `in-progress` (it would move the resource forward, but another attempt holds the lease), or
 * `repeat`/`stale` with what is `known` ({@link webhookOrderVerdict}).
 */
export type OrderBegin =
  | { answer: "started"; previous: OrderState | null }
  | { answer: "in-progress" }
  | { answer: "repeat" | "stale"; known: OrderState };

/**
 * Where a receiver keeps each payin's and payout's place in its order, shared by every instance that
 * receives its webhooks. Per resource key, a *state* (the last status let through, kept for a TTL) and a
 * *lease* (one attempt's `token`, which expires so a crashed process never blocks the resource). Each
 * operation must be atomic in the store and decide with {@link webhookOrderVerdict}.
 * Implementations: {@link MemoryOrderStore} (one process), `RedisOrderStore` from
 * `@paykit/webhooks/redis`, `PostgresOrderStore` from `@paykit/webhooks/postgres`.
 */
export interface WebhookOrderStore {
  /**
   * Compares `claim` with the state of `key`; when it is `forward` and no other attempt holds a live
   * lease, takes the lease for `leaseMs` (`started`).
   */
  begin(key: string, claim: OrderClaim, token: string, leaseMs: number): OrderBegin | Promise<OrderBegin>;
  /** Extends the lease while the handler runs; false when `token` no longer holds it. */
  renew(key: string, token: string, leaseMs: number): boolean | Promise<boolean>;
  /**
   * Moves the state to `claim` when it is still `forward` (a lease taken over by another attempt may have
   * moved it meanwhile; a state never moves back), keeps it for `ttlMs`, and gives up `token`'s lease
   * (an empty `token` holds none). Answers the verdict it applied.
   */
  commit(key: string, claim: OrderClaim, token: string, ttlMs: number): OrderVerdict | Promise<OrderVerdict>;
  /** Gives the lease up (the handler failed) so the sender's next retry runs; only `token`'s own lease. */
  release(key: string, token: string): void | Promise<void>;
  /** The state of `key`, or null when nothing is known (or it expired). */
  read(key: string): OrderState | null | Promise<OrderState | null>;
}

/** Options of {@link MemoryOrderStore}. */
export interface MemoryOrderStoreOptions {
  /** The clock, in ms since the epoch, for tests. @default () => Date.now() */
  now?: () => number;
  /** Most resources kept; the oldest written are forgotten beyond it. @default 100000 */
  maxEntries?: number;
}

interface MemoryEntry {
  state: OrderState | null;
  lease: { token: string; until: number } | null;
  /** When the entry is forgotten: the state's TTL, or the lease's end when that is later. */
  expiresAt: number;
}

/** An in-process {@link WebhookOrderStore}; one server instance only. */
export class MemoryOrderStore implements WebhookOrderStore {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: MemoryOrderStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Takes the lease of `key` when `claim` moves it forward and no live lease is held. */
  begin(key: string, claim: OrderClaim, token: string, leaseMs: number): OrderBegin {
    const now = this.#now();
    const entry = this.#live(key, now) ?? { state: null, lease: null, expiresAt: now };
    if (entry.state !== null) {
      const verdict = webhookOrderVerdict(claim, entry.state);
      if (verdict !== "forward") return { answer: verdict, known: { ...entry.state } };
    }
    if (entry.lease !== null && entry.lease.until > now) return { answer: "in-progress" };
    entry.lease = { token, until: now + leaseMs };
    entry.expiresAt = Math.max(entry.expiresAt, entry.lease.until);
    this.#write(key, entry, now);
    return { answer: "started", previous: entry.state === null ? null : { ...entry.state } };
  }

  /** Extends `token`'s lease. */
  renew(key: string, token: string, leaseMs: number): boolean {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (entry?.lease?.token !== token) return false;
    entry.lease.until = now + leaseMs;
    entry.expiresAt = Math.max(entry.expiresAt, entry.lease.until);
    return true;
  }

  /** Moves the state forward when `claim` still is, and frees `token`'s lease. */
  commit(key: string, claim: OrderClaim, token: string, ttlMs: number): OrderVerdict {
    const now = this.#now();
    const entry = this.#live(key, now) ?? { state: null, lease: null, expiresAt: now };
    const verdict = webhookOrderVerdict(claim, entry.state);
    if (entry.lease !== null && entry.lease.token === token) entry.lease = null;
    if (verdict === "forward") {
      entry.state = { status: claim.status, updatedAtMs: claim.updatedAtMs };
      // Kept the TTL from now, and as long as another attempt's live lease.
      entry.expiresAt = Math.max(now + ttlMs, entry.lease?.until ?? 0);
    }
    if (entry.state === null && entry.lease === null) this.#entries.delete(key);
    else this.#write(key, entry, now);
    return verdict;
  }

  /** Frees `token`'s lease; a lease taken over by another attempt is left alone. */
  release(key: string, token: string): void {
    const entry = this.#entries.get(key);
    if (entry?.lease?.token !== token) return;
    entry.lease = null;
    if (entry.state === null) this.#entries.delete(key);
  }

  /** The state of `key`, if known and not expired. */
  read(key: string): OrderState | null {
    const state = this.#live(key, this.#now())?.state;
    return state ? { ...state } : null;
  }

  /** Number of resources currently remembered (expired ones may linger until the next write). */
  get size(): number {
    return this.#entries.size;
  }

  #live(key: string, now: number): MemoryEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.expiresAt > now) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #write(key: string, entry: MemoryEntry, now: number): void {
    // Map keeps insertion order: re-inserting makes this the newest write, the last to be forgotten.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    for (const [oldKey, old] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && old.expiresAt > now) break;
      this.#entries.delete(oldKey);
    }
  }
}
