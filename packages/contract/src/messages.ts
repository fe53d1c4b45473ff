/**
 * Messages for shoppers, without zod or any schema: {@link formatPaymentError} turns a failed payment
 * request into what a checkout form shows, per field, in Brazilian Portuguese (the default) or English.
 *
 * @example
 * ```ts
 * import { formatPaymentError } from "@paykit/contract/messages";
 * formatPaymentError({ code: "PAYER_LIMIT_REJECTED", message: "…" }).message;
 * // "Cartão recusado: saldo insuficiente, tente outro cartão."
 * ```
 *
 * @packageDocumentation
 * @module @paykit/contract/messages
 */
export {
  type FormatPaymentErrorOptions,
  formatPaymentError,
  SHOPPER_FIELD_PATHS,
  SHOPPER_MESSAGES_EN,
  SHOPPER_MESSAGES_PT_BR,
  type ShopperAction,
  type ShopperCatalog,
  type ShopperCatalogOverrides,
  type ShopperErrorMessage,
  type ShopperFieldPath,
  type ShopperFieldText,
  type ShopperLocale,
  type ShopperThreeDSCode,
} from "./shopper-messages.js";
