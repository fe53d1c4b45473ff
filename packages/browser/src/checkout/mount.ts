import { h } from "./dom.js";
import { renderPayment } from "./render.js";
import type { MountedPayment, MountPaymentOptions } from "./types.js";

/**
 * Shows the payment screen of a payin inside `element` and follows its status until a final one: the PIX QR
 * code with copy-and-paste and countdown, the boleto's line and PDF, the open finance button, or the card's 3DS
 * confirmation; then the approved, refused or expired message. The screen lives in a shadow root of a `<div>`
 * appended to `element`, styled without inline styles (strict CSP).
 * @example
 * const payin = await createPayinOnYourServer(order); // your backend calls POST /payin
 * const screen = mountPayment(document.querySelector("#payment")!, {
 *   payin,
 *   statusUrl: "/payment-status", // createPaymentStatus(...).handler of @paykit/node/checkout
 *   onFinal: ({ status }) => status === "APPROVED" && showOrderConfirmed(),
 * });
 * // leaving the page section: screen.unmount();
 */
export function mountPayment(element: Element, options: MountPaymentOptions): MountedPayment {
  const host = h(element.ownerDocument, "div", { "data-paykit-payment": "" });
  element.append(host);
  let stop: () => void;
  try {
    stop = renderPayment(host.attachShadow({ mode: "open" }), options);
  } catch (error) {
    host.remove();
    throw error;
  }
  return {
    unmount() {
      stop();
      host.remove();
    },
  };
}
