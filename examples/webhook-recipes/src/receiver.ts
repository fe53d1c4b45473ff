// What every recipe shares: verify the raw delivery with the endpoint's secret, tell the shoppers' pages
// (the payment-status endpoint's notify), run the business logic only for an event that moves its payin
// or payout forward, once, through an order guard whose store every instance shares, and map the outcome
// to the status Paykit's retries understand (the guard also answers a retry of an applied event: no
// deduplicator beside it, docs/decisions/webhook-order-replaces-dedupe.md). Only reading the raw body
// differs per framework.
import { NotFoundError, type Payin, Paykit, type Payout } from "@paykit/node";
import type { PaymentStatusEndpoint } from "@paykit/node/checkout";
import {
  isWebhookParseError,
  isWebhookVerificationError,
  MemoryOrderStore,
  parseWebhookRequest,
  type RawWebhookBody,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookOrderGuard,
  type WebhookOrderStore,
} from "@paykit/webhooks";
import { inDeliveryTrace } from "./trace.js";

/** What a receiver needs: the API keys (to confirm), the endpoint's secret and the shared store. */
export interface ReceiverConfig {
  publicKey: string;
  secretKey: string;
  baseUrl: string;
  /** The endpoint's `whsec_…` secret. */
  webhookSecret: string;
  /** Shared across instances in production (Redis, PostgreSQL); in memory when left out. */
  store?: WebhookOrderStore;
  /**
   * Your business logic, run with the confirmed record once per event that moves its payin or payout
   * forward (never for a late one: a PROCESSING after its COMPLETED).
   */
  onEvent?: (event: WebhookEvent, record: Payin | Payout) => void | Promise<void>;
  /**
   * Your shoppers' payment-status endpoint (`createPaymentStatus`, docs/checkout.md): every verified
   * event goes to its `notify`, so each page following that payin, on every instance, hears it. An app
   * without checkout pages leaves it out.
   */
  paymentStatus?: Pick<PaymentStatusEndpoint, "notify">;
}

/** The statuses a receiver answers. */
export type ReceiverStatus = 200 | 204 | 400 | 409 | 500;

/** A framework-free webhook receiver. */
export interface Receiver {
  /** For frameworks that give the raw bytes and Node's headers (Express, Fastify, NestJS, node:http). */
  fromRaw(rawBody: RawWebhookBody, headers: WebhookHeaders): Promise<ReceiverStatus>;
  /** For web-standard handlers (Hono, Bun, Workers, Next.js route handlers): reads the body once. */
  fromRequest(request: Request): Promise<ReceiverStatus>;
}

/** Builds a {@link Receiver}. */
export function createReceiver(config: ReceiverConfig): Receiver {
  const paykit = new Paykit({
    publicKey: config.publicKey,
    secretKey: config.secretKey,
    baseUrl: config.baseUrl,
    webhookSecret: config.webhookSecret,
  });
  const order = new WebhookOrderGuard({ store: config.store ?? new MemoryOrderStore() });

  function handle(event: WebhookEvent): Promise<void> {
    // in the trace of the checkout that created the payment (a no-op without a tracer provider)
    return inDeliveryTrace(event, async () => {
      let record: Payin | Payout;
      try {
        record = await paykit.webhooks.confirm(event); // trust, but verify: the API's current record
      } catch (error) {
        // Signed, but about a resource these keys cannot see (another account or environment, a test
        // delivery): nothing to act on, and a retry would not change that. Acknowledge it.
        if (error instanceof NotFoundError) return;
        throw error;
      }
      await config.onEvent?.(event, record);
    });
  }

  async function answer(read: () => Promise<WebhookEvent>): Promise<ReceiverStatus> {
    let event: WebhookEvent;
    try {
      event = await read();
    } catch (error) {
      // a missing secret is this server's configuration, not the sender's fault: 500 keeps the event
      if (isWebhookVerificationError(error) && error.code === "SECRET_MISSING") return 500;
      // a delivery that cannot be trusted: a retry would fail the same way
      if (isWebhookVerificationError(error) || isWebhookParseError(error)) return 400;
      throw error;
    }
    try {
      await config.paymentStatus?.notify(event); // the shoppers' pages, on every instance (payout events are ignored)
      const outcome = await order.handle(event, handle);
      if (outcome.status === "in-progress") return 409; // another attempt is moving this resource: Paykit retries later
      // repeat (applied before) or stale (older than what is known): acknowledge it, nothing to do
      return outcome.status === "forward" ? 204 : 200;
    } catch {
      return 500; // our own failure, or the store is down: nothing moved, and Paykit's retry runs it again
    }
  }

  return {
    fromRaw: (rawBody, headers) => answer(() => paykit.webhooks.parse(rawBody, headers)),
    fromRequest: (request) => answer(() => parseWebhookRequest(request, { secret: config.webhookSecret })),
  };
}

/**
 * Reads a {@link ReceiverConfig} from PAYKIT_* variables (process.env, or a Workers `env`), with the
 * store every instance shares (src/order-store.ts for Node and Bun, src/order-store-rest.ts for Workers
 * and the Edge runtime). Without one it keeps the order in memory: one instance only, fine on a laptop,
 * wrong behind a load balancer.
 */
export function configFromEnv(
  env: Record<string, string | undefined>,
  store?: WebhookOrderStore,
): ReceiverConfig {
  const read = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    publicKey: read("PAYKIT_PUBLIC_KEY"),
    secretKey: read("PAYKIT_SECRET_KEY"),
    baseUrl: read("PAYKIT_BASE_URL"),
    webhookSecret: read("PAYKIT_WEBHOOK_SECRET"),
    ...(store ? { store } : {}),
  };
}
