import type { PayinWebhookBody, PayoutWebhookBody } from "@paykit/contract";

/** A payin status change: a PIX paid, a boleto expired, a 3DS or open finance decision. */
export interface PayinWebhookEvent {
  /** A payin's event. */
  kind: "payin";
  /** The payin's id (`pi_…`). */
  id: string;
  /** The delivered body, unknown fields kept. */
  data: PayinWebhookBody;
  /** The delivery's `webhook-id` header: stable across retries, for de-duplication. */
  webhookId?: string;
  /**
   * The delivery's W3C `traceparent` header, when it carries a valid one: the trace of the API call
   * that created the resource, so the handler can continue it (`propagation.extract`).
   */
  traceparent?: string;
}

/** A payout status change: processing, completed, failed, refused, refunded. */
export interface PayoutWebhookEvent {
  /** A payout's event. */
  kind: "payout";
  /** The payout's id (`po_…`). */
  id: string;
  /** The delivered body, unknown fields kept. */
  data: PayoutWebhookBody;
  /** The delivery's `webhook-id` header: stable across retries, for de-duplication. */
  webhookId?: string;
  /**
   * The delivery's W3C `traceparent` header, when it carries a valid one: the trace of the API call
   * that created the resource, so the handler can continue it (`propagation.extract`).
   */
  traceparent?: string;
}

/** A webhook delivery read as a payin or payout event; switch on `kind`. */
export type WebhookEvent = PayinWebhookEvent | PayoutWebhookEvent;

/** The raw body of a delivery as received: a string or the bytes, never a parsed object. */
export type RawWebhookBody = string | Uint8Array | ArrayBuffer;
