import type { PayinCreateParams, PayoutCreateParams, PayoutListQuery } from "@paykit/contract";
import { isPaykitApiError, isPaykitValidationError, type Paykit } from "@paykit/node";
import {
  isWebhookParseError,
  isWebhookVerificationError,
  verifyWebhook,
  WebhookDeduplicator,
  type WebhookEvent,
} from "@paykit/webhooks";
import express, { type NextFunction, type Request, type Response } from "express";

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The merchant's Paykit client. */
  paykit: Paykit;
  /** The webhook endpoint's signing secret (`whsec_…`). */
  webhookSecret: string;
  /** What the shop does with a verified, first-time event (fulfil the order, book the payout…). */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
}

/** Sends a Paykit failure as JSON: the service's status and code, and what to fix. */
function sendError(res: Response, error: unknown, next: NextFunction): void {
  if (isPaykitValidationError(error)) {
    res.status(400).json({ code: "INVALID_DATA", message: error.message, details: error.details });
  } else if (isPaykitApiError(error)) {
    res
      .status(error.status >= 500 ? 502 : error.status)
      .json({ code: error.code, message: error.message, details: error.details });
  } else {
    next(error);
  }
}

/** How each de-duplication outcome is answered: only a 2xx stops Paykit's retries. */
const STATUS_OF = { handled: 204, duplicate: 200, "in-progress": 409 } as const;

/**
 * An Express merchant backend: create payins and payouts, list payouts, and receive webhooks.
 * The webhook route reads the raw body with `express.raw` (the signature covers the exact bytes),
 * so it is declared with its own parser and no global `express.json()` runs before it.
 *
 * @example
 * ```ts
 * const app = createApp({ paykit, webhookSecret: process.env.PAYKIT_WEBHOOK_SECRET!, onEvent: fulfil });
 * app.listen(3000);
 * ```
 */
export function createApp(options: AppOptions): express.Express {
  const { paykit } = options;
  const dedup = new WebhookDeduplicator();
  const app = express();

  app.post(
    "/webhooks/paykit",
    express.raw({ type: "application/json", limit: "1mb" }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        // req.body is a Buffer of the bytes received; verifyWebhook refuses a parsed object.
        const event = await verifyWebhook(
          new Uint8Array(req.body as Buffer),
          req.headers,
          options.webhookSecret,
        );
        // Once per webhook-id: a retried delivery of an event already handled is acknowledged, not re-run;
        // one arriving while another attempt still runs it gets 409, so Paykit retries it later.
        const outcome = await dedup.handle(event, options.onEvent);
        res.status(STATUS_OF[outcome.status]).end();
      } catch (error) {
        // A missing secret is this server's configuration, not the sender's fault: a 5xx keeps the event.
        if (isWebhookVerificationError(error) && error.code === "SECRET_MISSING") return next(error);
        if (isWebhookVerificationError(error) || isWebhookParseError(error)) {
          res.status(400).json({ code: error.code, message: error.message });
          return;
        }
        // Anything else is the shop's own failure: a 5xx makes Paykit retry the delivery later.
        next(error);
      }
    },
  );

  app.post("/payins", express.json(), async (req, res, next) => {
    try {
      res.status(201).json(await paykit.payins.create(req.body as PayinCreateParams));
    } catch (error) {
      sendError(res, error, next);
    }
  });

  app.post("/payouts", express.json(), async (req, res, next) => {
    try {
      res.status(201).json(await paykit.payouts.create(req.body as PayoutCreateParams));
    } catch (error) {
      sendError(res, error, next);
    }
  });

  app.get("/payouts", async (req, res, next) => {
    const { page, limit, ...filters } = req.query as Record<string, string>;
    const query: PayoutListQuery = { ...filters };
    if (page) query.page = Number(page);
    if (limit) query.limit = Number(limit);
    try {
      res.json(await paykit.payouts.list(query));
    } catch (error) {
      sendError(res, error, next);
    }
  });

  return app;
}
