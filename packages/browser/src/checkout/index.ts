/**
 * The payment screen a Brazilian checkout shows after `POST /payin`: PIX QR code and copy-and-paste with a
 * countdown, boleto line and PDF, open finance button, card 3DS confirmation, then the final status, live from
 * the merchant's `createPaymentStatus` endpoint. Nothing runs on import; safe to import during SSR.
 *
 * @packageDocumentation
 * @module @paykit/browser/checkout
 */
export { definePaykitPayment, type PaykitPaymentElement } from "./element.js";
export { type CheckoutErrorCode, PaykitCheckoutError } from "./errors.js";
export { mountPayment } from "./mount.js";
export { CHECKOUT_STRINGS, type CheckoutLocale, type CheckoutStrings } from "./strings.js";
export { CHECKOUT_CSS } from "./styles.js";
export type {
  CheckoutPayin,
  CheckoutThreeDS,
  MountedPayment,
  MountPaymentOptions,
  PaymentStatusUpdate,
} from "./types.js";
export {
  FINAL_STATUSES,
  type PaymentStatusWatch,
  statusUrlFor,
  type WatchPaymentStatusOptions,
  watchPaymentStatus,
} from "./watch.js";
