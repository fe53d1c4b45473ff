import {
  isWebhookParseError,
  isWebhookVerificationError,
  parseWebhookRequest,
  WebhookDeduplicator,
  type WebhookDedupStore,
  type WebhookEvent,
} from "@paykit/webhooks";
import { Hono } from "hono";

/** Options of {@link createWebhookApp}. */
export interface WebhookAppOptions {
  /** The endpoint's signing secret (`whsec_…`), or several during a rotation. */
  secret: string | readonly string[];
  /** What the shop does with a verified, first-time event. */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /**
   * Where handled deliveries are remembered. An edge runtime has many short-lived instances: back
   * this with a shared store (KV, Redis, a database unique key). @default an in-memory store
   */
  dedupStore?: WebhookDedupStore;
  /** Where a failing handler is reported before the 500 answer. @default console.error */
  onError?: (error: unknown) => void;
}

/** How each de-duplication outcome is answered: only a 2xx stops Paykit's retries. */
const STATUS_OF = { handled: 204, duplicate: 200, "in-progress": 409 } as const;

/**
 * A Paykit webhook receiver on web-standard `Request`/`Response` with Hono: the same code runs on
 * Cloudflare Workers, Deno, Bun, Vercel Edge and Node. `parseWebhookRequest` reads the body once, as
 * text, and verifies the Standard Webhooks signature before anything is parsed.
 *
 * @example
 * ```ts
 * const app = createWebhookApp({ secret: env.PAYKIT_WEBHOOK_SECRET, onEvent: fulfil });
 * export default app; // Workers / Bun / Deno: app.fetch is the handler
 * ```
 */
export function createWebhookApp(options: WebhookAppOptions): Hono {
  const dedup = new WebhookDeduplicator(options.dedupStore ? { store: options.dedupStore } : {});
  const app = new Hono();
  // A 5xx makes Paykit retry the delivery later, and the de-duplicator released its key: nothing is lost.
  app.onError((error, c) => {
    (options.onError ?? console.error)(error);
    return c.json({ code: "INTERNAL_ERROR", message: "the webhook handler failed; Paykit will retry" }, 500);
  });
  app.post("/webhooks/paykit", async (c) => {
    try {
      // c.req.raw is the untouched Request: never call c.req.json() first, the body can be read once.
      const event = await parseWebhookRequest(c.req.raw, { secret: options.secret });
      const outcome = await dedup.handle(event, options.onEvent);
      // in-progress: another attempt is running this event now; 409 makes Paykit retry it later.
      return c.body(null, STATUS_OF[outcome.status]);
    } catch (error) {
      // A missing secret is this server's configuration, not the sender's fault: a 5xx keeps the event.
      if (isWebhookVerificationError(error) && error.code === "SECRET_MISSING") throw error;
      if (isWebhookVerificationError(error) || isWebhookParseError(error)) {
        return c.json({ code: error.code, message: error.message }, 400);
      }
      throw error;
    }
  });
  return app;
}
