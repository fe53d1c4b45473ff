import type {
  Payin,
  PayinCreated,
  PayinCreatedFor,
  PayinCreateParams,
  PaymentMethod,
} from "@paykit/contract";
import type { PaykitPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/config.js";
import type { Endpoint, ResponseSchema } from "../core/endpoint.js";
import type { Fate } from "../core/outcome.js";
import { path } from "../core/path.js";
import { stringAttribute } from "../core/telemetry.js";
import { Resource } from "./resource.js";
import { type FinalPayin, payinWaitsOf, type WaitForFinalOptions } from "./wait-for-final.js";

/**
 * What a failed creation means for the merchant when it may have created the payin. The service has
 * no lookup of payins by referenceId (docs/errors-and-retries.md), so the note points to the
 * dashboard; a webhook arrives only once the payin's status changes.
 */
const PAYIN_FATES: Partial<Record<Fate, (reference: string) => string>> = {
  unknown: (reference) =>
    `The payin may have been created, and the service has no lookup of payins by referenceId: look for ${reference} in the dashboard before creating it again (its webhook arrives only when its status changes)`,
  "took-effect": (reference) =>
    `The payin was created but its answer was lost: find ${reference} in the dashboard instead of creating it again (its webhook arrives when its status changes)`,
};

/** `referenceId "order-1"`, as the notes name a payin. */
function referenceOf(params: PayinCreateParams | undefined): string {
  const referenceId = stringAttribute(params?.referenceId);
  return referenceId === undefined ? "its referenceId" : `referenceId "${referenceId}"`;
}

const CREATE: Endpoint<PayinCreateParams, PayinCreated> = {
  name: "paykit.payins.create",
  method: "POST",
  template: "/payin",
  retry: "create-payin",
  path: () => "payin",
  request: (contract) => contract.PayinCreateParams,
  // The 201 schema of the request's method; the whole union when validation is off and the method unknown.
  response: (contract, params) =>
    (contract.PAYIN_CREATED_BY_METHOD[params?.paymentMethod as PaymentMethod] as
      | ResponseSchema<PayinCreated>
      | undefined) ?? contract.PayinCreated,
  attributes: (params) => ({
    "paykit.payment_method": stringAttribute(params?.paymentMethod),
    "paykit.reference_id": stringAttribute(params?.referenceId),
  }),
  learned: (payin) => ({ "paykit.payin.id": stringAttribute(payin?.id) }),
  explain: (fate, params) => PAYIN_FATES[fate]?.(referenceOf(params)),
};

const RETRIEVE: Endpoint<string, Payin> = {
  name: "paykit.payins.retrieve",
  method: "GET",
  template: "/payin/{id}",
  retry: "read",
  path: (id) => path`payin/${id}`,
  response: (contract) => contract.Payin,
  attributes: (id) => ({ "paykit.payin.id": stringAttribute(id) }),
  learned: (payin) => ({
    "paykit.payment_method": stringAttribute(payin?.paymentMethod),
    "paykit.reference_id": stringAttribute(payin?.referenceId),
  }),
};

/** Collections from a paying customer: PIX, BOLETO, CREDIT_CARD and OPEN_FINANCE. */
export class Payins extends Resource {
  /**
   * Creates a payin; the answer carries the method's payment data (`pix.qrcode`, `boleto`,
   * `openFinanceRedirectUrl`, or the 3DS fields of a card payin). Sent again automatically only
   * when the request certainly never reached the service, or on 429.
   *
   * @example
   * ```ts
   * const payin = await paykit.payins.create({ paymentMethod: "PIX", amount: 10000, ... });
   * showQrCode(payin.pix.qrcode);
   * ```
   */
  create<P extends PayinCreateParams>(
    params: P,
    options?: RequestOptions,
  ): PaykitPromise<PayinCreatedFor<P["paymentMethod"]>> {
    return this.core.send(CREATE, params, options) as PaykitPromise<PayinCreatedFor<P["paymentMethod"]>>;
  }

  /** The payin's current record: its status, net amount and reserve. The fallback when a webhook did not arrive. */
  retrieve(id: string, options?: RequestOptions): PaykitPromise<Payin> {
    return this.core.send(RETRIEVE, id, options);
  }

  /**
   * Resolves with the payin once it is APPROVED, REFUSED or EXPIRED. Reads it at once, then every 2 s
   * growing to 10 s (honouring `Retry-After`), and at once when a verified webhook for it reaches
   * `webhooks.parse` of this client. Concurrent waits for one id share one poll. Rejects with a
   * `PaymentWaitTimeoutError` after `timeoutMs`, `signal.reason` on abort, or the read's error when
   * waiting cannot help (404, 401/403). `withResponse()` gives the answer of the read that saw the
   * payin final.
   *
   * @example
   * ```ts
   * const payin = await paykit.payins.waitForFinal(created.id, { timeoutMs: 120_000 });
   * if (payin.status === "APPROVED") fulfil(payin.referenceId);
   * ```
   */
  waitForFinal(id: string, options?: WaitForFinalOptions): PaykitPromise<FinalPayin> {
    return payinWaitsOf(this, (payinId, signal) => this.retrieve(payinId, { signal })).wait(id, options);
  }
}
