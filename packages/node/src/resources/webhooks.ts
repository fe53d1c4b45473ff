import { type Payin, type Payout, WEBHOOK_HEADERS } from "@paykit/contract";
import {
  type PayinWebhookEvent,
  type PayoutWebhookEvent,
  parseWebhook,
  type RawWebhookBody,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
} from "@paykit/webhooks";
import type { RequestOptions } from "../core/config.js";
import { NotFoundError } from "../errors/api-error.js";
import type { Payins } from "./payins.js";
import type { Payouts } from "./payouts.js";

/** Which record `confirm` resolves for an event. */
export type ConfirmedRecord<E extends WebhookEvent> = E extends PayinWebhookEvent
  ? Payin
  : E extends PayoutWebhookEvent
    ? Payout
    : Payin | Payout;

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === "string" ? value : value?.join(" ");
}

/** Webhook deliveries: verify and read them, then confirm them against the API. */
export class Webhooks {
  readonly #payins: Payins;
  readonly #payouts: Payouts;
  readonly #secret: string | readonly string[] | undefined;

  constructor(payins: Payins, payouts: Payouts, secret: string | readonly string[] | undefined) {
    this.#payins = payins;
    this.#payouts = payouts;
    this.#secret = secret;
  }

  /**
   * Reads a delivery as a typed event, verifying its signature when the client has a
   * `webhookSecret` (then an unsigned or forged delivery is a `WebhookVerificationError`).
   * Pass the raw body, exactly as received.
   *
   * @example
   * ```ts
   * const event = await paykit.webhooks.parse(rawBody, req.headers);
   * const payin = event.kind === "payin" ? await paykit.webhooks.confirm(event) : undefined;
   * ```
   */
  async parse(rawBody: RawWebhookBody, headers: WebhookHeaders = {}): Promise<WebhookEvent> {
    if (this.#secret !== undefined) return verifyWebhook(rawBody, headers, this.#secret);
    const webhookId = readHeader(headers, WEBHOOK_HEADERS.id);
    const traceparent = readHeader(headers, "traceparent");
    return parseWebhook(rawBody, { ...(webhookId === undefined ? {} : { webhookId }), traceparent });
  }

  /**
   * The authoritative record behind an event, read from the API (trust, but verify): the payin by
   * id, or the payout by its referenceId. Act on this record's status, not the delivery's.
   */
  async confirm<E extends WebhookEvent>(event: E, options?: RequestOptions): Promise<ConfirmedRecord<E>> {
    if (event.kind === "payin") return (await this.#payins.retrieve(event.id, options)) as ConfirmedRecord<E>;
    const referenceId = event.data.referenceId;
    const newest = await this.#payouts.findByReferenceId(referenceId, options);
    if (newest?.id === event.id) return newest as ConfirmedRecord<E>;
    // A reused referenceId: search every payout that carries it for this event's id.
    for await (const payout of this.#payouts.listAll({ referenceId }, options)) {
      if (payout.id === event.id) return payout as ConfirmedRecord<E>;
    }
    throw new NotFoundError({
      status: 404,
      code: "NOT_FOUND",
      message: `No payout ${event.id} with referenceId "${referenceId}" exists on this account`,
      body: null,
      request: "GET /payout",
    });
  }
}
