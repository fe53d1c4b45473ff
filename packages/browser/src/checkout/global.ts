import { definePaykitPayment } from "./element.js";
import { mountPayment } from "./mount.js";
import { watchPaymentStatus } from "./watch.js";

// Entry of the checkout IIFE (dist/paykit-checkout.global.js) for a plain `<script>` tag: `window.PaykitCheckout`,
// and `<paykit-payment>` ready to use, which is what a page without a bundler loads this script for.
(globalThis as { PaykitCheckout?: object }).PaykitCheckout = {
  mountPayment,
  definePaykitPayment,
  watchPaymentStatus,
};
definePaykitPayment();
