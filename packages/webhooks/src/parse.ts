import { issuesToDetails, PayinWebhookBody, PayoutWebhookBody, webhookKindOf } from "@paykit/contract";
import { WebhookParseError } from "./errors.js";
import type { RawWebhookBody, WebhookEvent } from "./event.js";
import { bodyToString } from "./internal/bytes.js";

/** Options of {@link parseWebhook}. */
export interface ParseWebhookOptions {
  /** The delivery's `webhook-id` header, copied onto the event for de-duplication. */
  webhookId?: string;
  /** The delivery's `traceparent` header, copied onto the event when it is a valid W3C traceparent. */
  traceparent?: string;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function readJson(body: RawWebhookBody | object): unknown {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer) {
    const text = bodyToString(body);
    if (text.length === 0) {
      throw new WebhookParseError(
        "EMPTY_BODY",
        "The webhook body is empty: the raw body was not captured (a body parser consumed it, or it was read twice).",
      );
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new WebhookParseError(
        "INVALID_JSON",
        "The webhook body is not JSON: pass the request body exactly as received (string or bytes).",
      );
    }
  }
  return body;
}

/**
 * Reads a webhook body as a payin or payout event and NEVER verifies its signature: anyone can forge
 * what it accepts. For deliveries from the network use {@link verifyWebhook} or `parseWebhookRequest`
 * with the account's secret; this is for bodies already verified, fixtures and tests.
 *
 * @example
 * ```ts
 * const event = parseWebhook(rawBody);
 * if (event.kind === "payin" && event.data.status === "APPROVED") fulfil(event.data.referenceId);
 * ```
 */
export function parseWebhook(body: RawWebhookBody | object, options: ParseWebhookOptions = {}): WebhookEvent {
  const json = readJson(body);
  // docs/decisions/webhooks.md: a payout's body has `pixKey`, a payin's has `paymentMethod`.
  const kind = webhookKindOf(json);
  if (kind === null) {
    throw new WebhookParseError(
      "UNKNOWN_KIND",
      "The webhook body is neither a payin (no paymentMethod) nor a payout (no pixKey): is this a Paykit delivery?",
    );
  }
  const schema = kind === "payin" ? PayinWebhookBody : PayoutWebhookBody;
  const result = schema.safeParse(json);
  if (!result.success) {
    const details = issuesToDetails(result.error.issues);
    const first = details[0];
    throw new WebhookParseError(
      "INVALID_BODY",
      `The ${kind} webhook body does not match the contract${first ? `: ${first.path} ${first.message}` : ""}.`,
      details,
    );
  }
  const event = { kind, id: result.data.id, data: result.data } as WebhookEvent;
  if (options.webhookId !== undefined) event.webhookId = options.webhookId;
  const traceparent = options.traceparent?.trim();
  if (traceparent !== undefined && TRACEPARENT.test(traceparent)) event.traceparent = traceparent;
  return event;
}
