import type { PaymentStatusEndpoint } from "@paykit/node/checkout";
import {
  isWebhookParseError,
  isWebhookVerificationError,
  verifyWebhook,
  WebhookDeduplicator,
  type WebhookEvent,
} from "@paykit/webhooks";
import type { OrderBook } from "./orders.js";

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** The endpoint's signing secret (`whsec_…`); every delivery must carry a valid signature. */
  secret: string;
  /** Where verified events are applied. */
  orders: OrderBook;
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
 * then applies each delivery once (a retried delivery keeps its `webhook-id`, docs/decisions/webhooks.md) and
 * hands it to the payment-status endpoint, which tells every page watching that
 * payin. A 2xx tells Paykit to stop retrying, so it is sent only once the event is safely applied.
 */
export function createWebhookReceiver(
  options: WebhookReceiverOptions,
): (request: Request) => Promise<Response> {
  const dedup = new WebhookDeduplicator();
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
    const outcome = await dedup.handle(event, async (e) => {
      const applied = options.orders.apply(e);
      // After the order book, so a page told "approved" finds its order paid; inside the once-only
      // handler, so a failure here is answered 500 and Paykit's retry tells the pages again.
      await options.paymentStatus.notify(e);
      return applied;
    });
    if (outcome.status === "in-progress") {
      // Another attempt is handling this event right now: not acknowledged, so Paykit retries it.
      options.log(`… webhook ${event.webhookId} (${describe(event)}) in progress elsewhere: retry later`);
      return new Response(null, { status: 409 });
    }
    if (outcome.status === "duplicate") {
      options.log(`↺ webhook ${event.webhookId} (${describe(event)}) already handled: ignored`);
    } else {
      options.log(`✔ webhook verified: ${describe(event)} [${outcome.result}]`);
    }
    return new Response(null, { status: 204 });
  };
}
