/**
 * Apply each payin's and payout's webhooks in order, across every instance of a receiver: the order
 * guard, its in-memory store and the rules it decides by, without the parsers (no schema is loaded).
 *
 * @packageDocumentation
 * @module @paykit/webhooks/order
 */
import type { WebhookEvent } from "./event.js";
import { keepLease, positiveMs } from "./internal/lease.js";
import {
  type OrderState,
  type OrderVerdict,
  orderClaimOf,
  type WebhookResourceKind,
  webhookOrderClaim,
  webhookOrderKey,
} from "./order-rules.js";
import { MemoryOrderStore, type WebhookOrderStore } from "./order-store.js";

export {
  type OrderClaim,
  type OrderState,
  type OrderVerdict,
  orderClaimOf,
  type WebhookResourceKind,
  webhookOrderClaim,
  webhookOrderKey,
  webhookOrderVerdict,
} from "./order-rules.js";
export {
  MemoryOrderStore,
  type MemoryOrderStoreOptions,
  type OrderBegin,
  type WebhookOrderStore,
} from "./order-store.js";

/** Options of {@link WebhookOrderGuard}. */
export interface WebhookOrderGuardOptions {
  /** Where each resource's order is kept; share one store between instances. @default new MemoryOrderStore() */
  store?: WebhookOrderStore;
  /**
   * How long an attempt holds a resource while its handler runs, in ms. The lease is renewed every
   * third of it while the handler runs, so only a process that died loses it: the next retry then runs.
   * @default 60000
   */
  leaseMs?: number;
  /**
   * How long a resource's last status is remembered after it moved, in ms. Long enough that a late
   * event still finds it: the service retries a delivery for about 4.6 hours, and a delivery can be
   * sent again by hand later (docs/decisions/webhook-order-guard.md). A resource forgotten is new again:
   * its next event is `forward` with `previous: null`.
   * @default 604800000 (7 days)
   */
  ttlMs?: number;
}

/**
 * What {@link WebhookOrderGuard.handle} did with an event, and how to answer the sender:
 * `forward` (the handler ran and the resource moved on: 2xx), `repeat` (the status was already applied:
 * 2xx, so the sender stops), `stale` (older than what is known, never applied: 2xx), `in-progress`
 * (another attempt is moving this resource right now: answer a retryable status such as 409, never
 * 2xx, or the event is lost if that attempt fails).
 */
export type OrderOutcome<T> =
  | { status: "forward"; result: T; previous: OrderState | null }
  | { status: "repeat"; known: OrderState }
  | { status: "stale"; known: OrderState }
  | { status: "in-progress" };

/**
 * Runs a webhook handler only for events that move their payin or payout forward, one attempt per
 * resource at a time across every instance sharing the store, and never loses one. What may follow what
 * comes from the contract's transition tables ({@link webhookOrderVerdict}): a `PROCESSING` after a
 * `COMPLETED` is `stale`, so is an older `updatedAt`, and a `REFUNDED` after `COMPLETED` is `forward`.
 * A retry of an applied event is a `repeat` and one that arrives while it runs is `in-progress`, so the
 * guard also handles each event once: use it instead of a `WebhookDeduplicator`, not inside one.
 * A handler that throws leaves the resource where it was (answer 5xx: the retry runs it); a store that
 * cannot be reached throws before the handler runs, so nothing stale gets through.
 *
 * @example
 * ```ts
 * const order = new WebhookOrderGuard({ store: new MemoryOrderStore() });
 * const outcome = await order.handle(event, async (e) => fulfil(e));
 * return new Response(null, { status: outcome.status === "in-progress" ? 409 : 204 });
 * ```
 */
export class WebhookOrderGuard {
  readonly #store: WebhookOrderStore;
  readonly #leaseMs: number;
  readonly #ttlMs: number;

  constructor(options: WebhookOrderGuardOptions = {}) {
    this.#store = options.store ?? new MemoryOrderStore();
    this.#leaseMs = positiveMs(options.leaseMs, 60_000, "WebhookOrderGuard", "leaseMs");
    this.#ttlMs = positiveMs(options.ttlMs, 604_800_000, "WebhookOrderGuard", "ttlMs");
  }

  /**
   * Runs `handler` when `event` moves its resource forward and no other attempt is moving it; the
   * handler gets what was known before (null the first time a resource is seen, when a late event
   * looks new: act on the confirmed record then).
   */
  async handle<E extends WebhookEvent, T>(
    event: E,
    handler: (event: E, previous: OrderState | null) => T | Promise<T>,
  ): Promise<OrderOutcome<T>> {
    const key = webhookOrderKey(event);
    const claim = webhookOrderClaim(event);
    const token = crypto.randomUUID();
    const begun = await this.#store.begin(key, claim, token, this.#leaseMs);
    if (begun.answer === "in-progress") return { status: "in-progress" };
    if (begun.answer !== "started") return { status: begun.answer, known: begun.known };
    // a long handler keeps its resource
    const stopRenewing = keepLease(() => this.#store.renew(key, token, this.#leaseMs), this.#leaseMs);
    let result: T;
    try {
      result = await handler(event, begun.previous);
    } catch (error) {
      stopRenewing();
      // The handler's error is the one to report; a failed release only leaves the lease to expire.
      await Promise.resolve()
        .then(() => this.#store.release(key, token))
        .catch(() => undefined);
      throw error;
    }
    stopRenewing();
    await this.#store.commit(key, claim, token, this.#ttlMs);
    return { status: "forward", result, previous: begun.previous };
  }

  /**
   * Records a status learned elsewhere than a webhook (the 201 answer of a creation, a record read
   * with `confirm`), so that a late event is judged against it; a status that is not `forward` is
   * left out. Answers the verdict it applied.
   *
   * @example
   * ```ts
   * const payin = await paykit.payins.create(params);
   * await order.remember("payin", { id: payin.id, status: payin.status, updatedAt: payin.createdAt });
   * ```
   */
  async remember(
    kind: WebhookResourceKind,
    record: { id: string; status: string; updatedAt: string },
  ): Promise<OrderVerdict> {
    const key = webhookOrderKey({ kind, id: record?.id });
    return this.#store.commit(key, orderClaimOf(kind, record.status, record.updatedAt), "", this.#ttlMs);
  }

  /** What is known of a payin or payout: its last status let through and when, or null. */
  async known(kind: WebhookResourceKind, id: string): Promise<OrderState | null> {
    return this.#store.read(webhookOrderKey({ kind, id }));
  }
}
