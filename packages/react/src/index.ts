/**
 * Paykit's payment screen for React 18 and 19: `<PaykitPayment>` (the screen of `@paykit/browser/checkout`),
 * `usePaymentStatus` to draw your own, and `useThreeDS` for a card's 3DS confirmation. Safe under server-side
 * rendering (a stable placeholder, no mismatch at hydration) and StrictMode (one screen, one status stream).
 *
 * @packageDocumentation
 * @module @paykit/react
 */

// The shapes a page types its own code with, so that it needs no import from @paykit/browser for them.
export type { CheckoutPayin, PaymentStatusUpdate } from "@paykit/browser/checkout";
export { PaykitPayment, type PaykitPaymentProps } from "./paykit-payment.js";
export { LOADING_STRINGS, type PaykitPaymentStrings } from "./strings.js";
export { type PaymentStatusState, usePaymentStatus } from "./use-payment-status.js";
export { type ThreeDSRun, type ThreeDSRunState, useThreeDS } from "./use-three-ds.js";
