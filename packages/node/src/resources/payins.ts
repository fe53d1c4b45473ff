import type * as Contract from "@paykit/contract";
import type {
  Payin,
  PayinCreated,
  PayinCreatedFor,
  PayinCreateParams,
  PaymentMethod,
} from "@paykit/contract";
import type { ResponseSchema } from "../core/api-core.js";
import type { RequestOptions } from "../core/config.js";
import { loadContract } from "../core/contract.js";
import { path } from "../core/path.js";
import { stringAttribute, traced } from "../core/telemetry.js";
import { Resource } from "./resource.js";

/** The 201 schema of the request's method; the whole union when validation is off and the method unknown. */
function createdSchema(contract: typeof Contract, method: unknown): ResponseSchema<PayinCreated> {
  return (
    (contract.PAYIN_CREATED_BY_METHOD[method as PaymentMethod] as ResponseSchema<PayinCreated> | undefined) ??
    contract.PayinCreated
  );
}

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
  async create<P extends PayinCreateParams>(
    params: P,
    options?: RequestOptions,
  ): Promise<PayinCreatedFor<P["paymentMethod"]>> {
    return traced(
      "paykit.payins.create",
      {
        "paykit.payment_method": stringAttribute(params?.paymentMethod),
        "paykit.reference_id": stringAttribute(params?.referenceId),
      },
      async (operation) => {
        const contract = await loadContract();
        return this.core.post("payin", {
          ...options,
          body: this.check(contract.PayinCreateParams, params),
          schema: createdSchema(contract, params?.paymentMethod),
          retry: "create-payin",
          template: "/payin",
          operation,
        }) as Promise<PayinCreatedFor<P["paymentMethod"]>>;
      },
      (payin) => ({ "paykit.payin.id": stringAttribute(payin?.id) }),
    );
  }

  /** The payin's current record: its status, net amount and reserve. The fallback when a webhook did not arrive. */
  async retrieve(id: string, options?: RequestOptions): Promise<Payin> {
    return traced(
      "paykit.payins.retrieve",
      { "paykit.payin.id": stringAttribute(id) },
      async (operation) => {
        const { Payin: schema } = await loadContract();
        return this.core.get(path`payin/${id}`, { ...options, schema, template: "/payin/{id}", operation });
      },
      (payin) => ({
        "paykit.payment_method": stringAttribute(payin?.paymentMethod),
        "paykit.reference_id": stringAttribute(payin?.referenceId),
      }),
    );
  }
}
