import type { PaymentStatusEndpoint } from "@paykit/node/checkout";
import {
  isWebhookParseError,
  isWebhookVerificationError,
  verifyWebhook,
  type WebhookEvent,
  type WebhookOrderGuard,
} from "@paykit/webhooks";
import type { ShopOrders } from "./orders.js";

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** The endpoint's signing secret (`whsec_…`); every delivery must carry a valid signature. */
  secret: string;
  /** Where verified events that move their payin or payout forward are recorded. */
  orders: ShopOrders;
  /**
   * Which events move their payin or payout forward, applied one at a time per resource (the backend
   * also tells it the status each payin and payout was created in).
   */
  order: WebhookOrderGuard;
  /** The shoppers' payment-status endpoint: each verified event applied reaches the pages watching it. */
  paymentStatus: Pick<PaymentStatusEndpoint, "notify">;
  /** One line per delivery (never the body: it holds customer data). */
  log: (line: string) => void;
}

function describe(event: WebhookEvent): string {
  return event.kind === "payin"
    ? `payin ${event.id} ${event.data.paymentMethod} → ${event.data.status}`
    : `payout ${event.id} → ${event.data.status}`;
}

/**
 * The merchant's webhook endpoint: reads the raw body, verifies the Standard Webhooks signature,
 * then applies each event that moves its payin or payout forward, once, through the order guard (a
 * retried delivery is a repeat; a late one, a PROCESSING after a COMPLETED, is stale: docs/webhooks.md)
 * and hands it to the payment-status endpoint, which tells every page watching that payin. A 2xx tells
 * Paykit to stop retrying, so it is sent only once the event is safely applied, or known to be old.
 */
export function createWebhookReceiver(
  options: WebhookReceiverOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    // The signature covers the exact bytes sent: read them as text, never re-serialize parsed JSON.
    const raw = await request.text();
    let event: WebhookEvent;
    try {
      event = await verifyWebhook(raw, request.headers, options.secret);
    } catch (error) {
      if (isWebhookVerificationError(error) && error.code === "SECRET_MISSING") throw error;
      if (isWebhookVerificationError(error) || isWebhookParseError(error)) {
        options.log(`✗ webhook refused (${error.code}): ${error.message}`);
        return Response.json({ code: error.code, message: error.message }, { status: 400 });
      }
      throw error;
    }
    const outcome = await options.order.handle(event, async (e) => {
      const applied = options.orders.record(e);
      // After the shop's orders, so a page told "approved" finds its order paid; inside the guarded
      // handler, so a failure here is answered 500 and Paykit's retry tells the pages again.
      await options.paymentStatus.notify(e);
      return applied;
    });
    if (outcome.status === "in-progress") {
      // Another attempt is handling this event right now: not acknowledged, so Paykit retries it.
      options.log(`… webhook ${event.webhookId} (${describe(event)}) in progress elsewhere: retry later`);
      return new Response(null, { status: 409 });
    }
    if (outcome.status === "repeat") {
      options.log(`↺ webhook ${event.webhookId} (${describe(event)}) already handled: ignored`);
    } else if (outcome.status === "stale") {
      options.log(
        `↺ webhook ${event.webhookId} (${describe(event)}) stale, ${outcome.known.status} known: ignored`,
      );
    } else {
      options.log(`✔ webhook verified: ${describe(event)} [${outcome.result}]`);
    }
    return new Response(null, { status: 204 });
  };
}
