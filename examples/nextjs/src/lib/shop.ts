// The shop's server side, shared by every route: the Paykit client, the payment-status endpoint, the
// webhook de-duplicator and the order book. Made on the first request, not at import: `next build`
// imports the routes without the shop's environment, and one instance per process is kept on
// `globalThis` so every route (each its own bundle entry) reaches the same endpoint: a webhook's
// `notify` must reach the streams the status route opened.
import {
  isWebhookParseError,
  isWebhookVerificationError,
  MemoryDedupStore,
  NotFoundError,
  Paykit,
  WebhookDeduplicator,
  type WebhookEvent,
} from "@paykit/node";
import { createPaymentStatus, type PaymentStatusEndpoint } from "@paykit/node/checkout";

/** One order of the shop: the session that placed it and the payin that pays it. */
export interface Order {
  sessionId: string;
  payinId: string;
  referenceId: string;
  /** Set once the verified webhook said APPROVED and the API confirmed it. */
  paidAt?: string;
}

interface Shop {
  paykit: Paykit;
  paymentStatus: PaymentStatusEndpoint;
  dedup: WebhookDeduplicator;
  /** Your order database, by payin id. */
  orders: Map<string, Order>;
}

const holder = globalThis as { paykitShop?: Shop };

/** The shop of this process. */
export function shop(): Shop {
  holder.paykitShop ??= openShop();
  return holder.paykitShop;
}

function openShop(): Shop {
  const paykit = new Paykit({
    publicKey: process.env.PAYKIT_PUBLIC_KEY!,
    secretKey: process.env.PAYKIT_SECRET_KEY!,
    baseUrl: process.env.PAYKIT_BASE_URL!,
    webhookSecret: process.env.PAYKIT_WEBHOOK_SECRET, // webhooks.parse verifies with it
  });
  const orders = new Map<string, Order>();
  const paymentStatus = createPaymentStatus({
    paykit,
    // Only the session that placed the order may follow its payin; anyone else gets 404.
    authorize: (request, payinId) => {
      const sessionId = sessionOf(request);
      return sessionId !== undefined && orders.get(payinId)?.sessionId === sessionId;
    },
  });
  // In memory: one instance only. Several instances share a store (@paykit/webhooks/redis or /postgres).
  const dedup = new WebhookDeduplicator({ store: new MemoryDedupStore() });
  return { paykit, paymentStatus, dedup, orders };
}

/** The shopper's session id, from the `sid` cookie the orders route sets. */
export function sessionOf(request: Request): string | undefined {
  return /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
}

/** Your business logic, run at most once per delivery: fulfil an order the API confirms APPROVED. */
async function handlePaykitEvent(event: WebhookEvent): Promise<void> {
  const { paykit, orders } = shop();
  if (event.kind !== "payin") return;
  // the authoritative record; null when these keys cannot see it (another account, a test delivery)
  const payin = await paykit.webhooks.confirm(event).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
  const order = payin ? orders.get(payin.id) : undefined;
  if (order && payin?.status === "APPROVED") order.paidAt ??= payin.updatedAt;
}

/** Verifies (`read`), tells the shoppers' pages, de-duplicates and handles one delivery; the HTTP status to answer. */
export async function receiveWebhook(read: () => Promise<WebhookEvent>): Promise<number> {
  let event: WebhookEvent;
  try {
    event = await read();
  } catch (error) {
    // A missing secret is this server's configuration: 500 keeps the event coming.
    if (isWebhookVerificationError(error) && error.code === "SECRET_MISSING") return 500;
    if (isWebhookVerificationError(error) || isWebhookParseError(error)) return 400; // a retry fails the same way
    throw error;
  }
  try {
    await shop().paymentStatus.notify(event); // every page following this payin gets the new status now
    const outcome = await shop().dedup.handle(event, handlePaykitEvent);
    if (outcome.status === "in-progress") return 409; // another attempt holds the lease: Paykit retries later
    return outcome.status === "duplicate" ? 200 : 204;
  } catch {
    return 500; // our own failure: Paykit's retry runs it again
  }
}
