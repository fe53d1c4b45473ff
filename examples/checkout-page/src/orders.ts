import type { PayinCreated } from "@paykit/contract";
import type { WebhookEvent } from "@paykit/webhooks";

/** What the merchant knows of one order's payin: created by the backend, moved by the webhooks it applied. */
export interface OrderView {
  payinId: string;
  referenceId: string;
  paymentMethod: string;
  /** Gross amount in cents. */
  amount: number;
  status: string;
  /** The service's `updatedAt` of the last status applied (ISO 8601). */
  updatedAt: string;
  /** The shopper session that placed the order: the only one that may follow its payin (src/session.ts). */
  sessionId: string;
  /** The 201 answer of POST /payin, which the payment screen shows (again when the shopper comes back). */
  created: PayinCreated;
}

/** What the shop's orders tell their subscribers: an order created or moved, a payout moved by its webhook. */
export type MerchantUpdate =
  | { type: "payin"; via: "created" | "webhook"; order: OrderView }
  | { type: "payout"; payoutId: string; referenceId: string; status: string };

/**
 * The shop's orders: payins it created, the session that placed each order, and the statuses its
 * webhook receiver applied, with a fan-out to in-process subscribers (the headless demo counts and
 * waits on webhooks with it). A real shop keeps this in its database. Which webhook may move an order
 * is not decided here: the receiver's order guard (`WebhookOrderGuard`, src/webhook-receiver.ts) lets
 * through only events that move their payin or payout forward.
 */
export class ShopOrders {
  readonly #orders = new Map<string, OrderView>();
  readonly #subscribers = new Set<(update: MerchantUpdate) => void>();
  readonly #waiters = new Set<{
    test: (u: MerchantUpdate) => boolean;
    resolve: (u: MerchantUpdate) => void;
  }>();

  /** Records a payin the backend just created. */
  add(order: OrderView): void {
    this.#orders.set(order.payinId, order);
    this.#publish({ type: "payin", via: "created", order });
  }

  /** The order of a payin, if this backend created it. */
  get(payinId: string): OrderView | undefined {
    return this.#orders.get(payinId);
  }

  /** Whether `sessionId` placed the order that `payinId` pays: who may see that payment. */
  placedBy(payinId: string, sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.#orders.get(payinId)?.sessionId === sessionId;
  }

  /**
   * Records the status of an event the order guard let through (it moves its resource forward);
   * `unknown` for a payin this backend did not create.
   */
  record(event: WebhookEvent): "applied" | "unknown" {
    if (event.kind === "payout") {
      this.#publish({
        type: "payout",
        payoutId: event.id,
        referenceId: event.data.referenceId,
        status: event.data.status,
      });
      return "applied";
    }
    const order = this.#orders.get(event.id);
    if (!order) return "unknown";
    order.status = event.data.status;
    order.updatedAt = event.data.updatedAt;
    this.#publish({ type: "payin", via: "webhook", order: { ...order } });
    return "applied";
  }

  /** Calls `listener` with every later update; returns the unsubscribe function. */
  subscribe(listener: (update: MerchantUpdate) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  /** Resolves with the first later update that `test` accepts (the headless demo waits on webhooks so). */
  waitFor(test: (update: MerchantUpdate) => boolean, signal?: AbortSignal): Promise<MerchantUpdate> {
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve };
      this.#waiters.add(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          this.#waiters.delete(waiter);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  #publish(update: MerchantUpdate): void {
    for (const listener of this.#subscribers) listener(update);
    for (const waiter of this.#waiters) {
      if (!waiter.test(update)) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(update);
    }
  }
}
