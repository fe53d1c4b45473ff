import type { Payin, Payout } from "@paykit/contract";
import { WEBHOOK_HEADERS } from "@paykit/contract/rules";
import type {
  PayinWebhookEvent,
  PayoutWebhookEvent,
  RawWebhookBody,
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookHeaders,
} from "@paykit/webhooks";
// The guard's own entry point: no parser and no schema, so importing the client stays fast.
import { WebhookOrderGuard, type WebhookOrderGuardOptions } from "@paykit/webhooks/order";
import type { RequestOptions } from "../core/config.js";
import { type PaykitAttributes, stringAttribute, traced } from "../core/telemetry.js";
import { NotFoundError } from "../errors/api-error.js";
import type { Payins } from "./payins.js";
import type { Payouts } from "./payouts.js";
import { statusHubOf } from "./status-hub.js";

/** Options of `paykit.webhooks.parse`. */
export interface WebhookParseOptions extends VerifyWebhookOptions {
  /**
   * Reads the delivery without verifying its signature. Only when asked for by name (tests, local
   * tools): nothing then proves it came from Paykit, so confirm the resource before acting.
   * @default false
   */
  allowUnsigned?: boolean;
}

/** Which record `confirm` resolves for an event. */
export type ConfirmedRecord<E extends WebhookEvent> = E extends PayinWebhookEvent
  ? Payin
  : E extends PayoutWebhookEvent
    ? Payout
    : Payin | Payout;

/** The attributes naming an event's resource. */
function resourceAttributes(event: WebhookEvent): PaykitAttributes {
  return event.kind === "payin"
    ? {
        "paykit.payin.id": stringAttribute(event.id),
        "paykit.payment_method": stringAttribute(event.data?.paymentMethod),
      }
    : { "paykit.payout.id": stringAttribute(event.id) };
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === "string" ? value : value?.join(" ");
}

/** Webhook deliveries: verify and read them, apply them in order, and confirm them against the API. */
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
   * Reads a delivery as a typed event, verified against the client's `webhookSecret`: an unsigned or
   * forged delivery is a `WebhookVerificationError`. Without a configured secret (or with an empty one)
   * it throws `WebhookVerificationError` code `SECRET_MISSING`, never "verification off"; reading
   * unverified is possible only by name, with `{ allowUnsigned: true }`. Pass the raw body, exactly as received.
   *
   * @example
   * ```ts
   * const event = await paykit.webhooks.parse(rawBody, req.headers);
   * const payin = event.kind === "payin" ? await paykit.webhooks.confirm(event) : undefined;
   * ```
   */
  async parse(
    rawBody: RawWebhookBody,
    headers: WebhookHeaders = {},
    options: WebhookParseOptions = {},
  ): Promise<WebhookEvent> {
    return traced(
      "paykit.webhooks.parse",
      {},
      async () => {
        const { allowUnsigned = false, ...verifyOptions } = options;
        // Loaded on first use, like the contract's schemas: importing the client stays fast.
        const { parseWebhook, verifyWebhook } = await import("@paykit/webhooks");
        if (!allowUnsigned)
          return this.#seen(await verifyWebhook(rawBody, headers, this.#secret, verifyOptions));
        const webhookId = readHeader(headers, WEBHOOK_HEADERS.id);
        const traceparent = readHeader(headers, "traceparent");
        return parseWebhook(rawBody, { ...(webhookId === undefined ? {} : { webhookId }), traceparent });
      },
      resourceAttributes,
    );
  }

  /** A verified payin event wakes every `payins.waitForFinal` of that payin on this client. */
  #seen(event: WebhookEvent): WebhookEvent {
    if (event.kind === "payin") statusHubOf(this.#payins).publish(event.data);
    return event;
  }

  /**
   * An order guard for this client's deliveries, the same as `new WebhookOrderGuard(options)`: it runs a
   * handler only for an event that moves its payin or payout forward in the contract's transition tables
   * (a `PROCESSING` after `COMPLETED` is `stale`, so is an older `updatedAt`), one attempt per resource
   * at a time across every instance sharing `store`, and answers a retry of an applied event `repeat`:
   * use it instead of a `WebhookDeduplicator`. Make one per process and keep it (its default store is
   * in memory); give instances a shared store (`RedisOrderStore`, `PostgresOrderStore` from
   * `@paykit/webhooks/redis` and `/postgres`).
   *
   * @example
   * ```ts
   * const order = paykit.webhooks.orderGuard({ store: new RedisOrderStore(redis) });
   * const outcome = await order.handle(event, async (e) => fulfil(await paykit.webhooks.confirm(e)));
   * const status = { forward: 204, repeat: 200, stale: 200, "in-progress": 409 }[outcome.status];
   * ```
   */
  orderGuard(options?: WebhookOrderGuardOptions): WebhookOrderGuard {
    return new WebhookOrderGuard(options);
  }

  /**
   * The authoritative record behind an event, read from the API (trust, but verify): the payin by
   * id, or the payout by its referenceId. Act on this record's status, not the delivery's.
   */
  async confirm<E extends WebhookEvent>(event: E, options?: RequestOptions): Promise<ConfirmedRecord<E>> {
    return traced("paykit.webhooks.confirm", resourceAttributes(event), () => this.#confirm(event, options));
  }

  async #confirm<E extends WebhookEvent>(event: E, options?: RequestOptions): Promise<ConfirmedRecord<E>> {
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
