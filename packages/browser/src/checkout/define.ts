/**
 * Registers `<paykit-payment>` on import: `import "@paykit/browser/checkout/element"`. The one entry of this
 * package with a side effect; `@paykit/browser/checkout` itself runs nothing on import.
 *
 * @packageDocumentation
 * @module @paykit/browser/checkout/element
 */
import { definePaykitPayment } from "./element.js";

definePaykitPayment();

export { definePaykitPayment, type PaykitPaymentElement } from "./element.js";
