import { PaykitCheckoutError } from "./errors.js";
import { renderPayment } from "./render.js";
import type { CheckoutStrings } from "./strings.js";
import type { CheckoutPayin, CheckoutThreeDS, MountPaymentOptions, PaymentStatusUpdate } from "./types.js";

/**
 * The `<paykit-payment>` element: the payment screen of `mountPayment` for pages without a bundler.
 * Set `payin` (property, or the `payin` attribute as JSON) and `statusUrl` (or `status-url`); it fires
 * `paykit-final`, whose `event.detail` is the final {@link PaymentStatusUpdate} object
 * (`{ id, status, paymentMethod, updatedAt }`, not a string: read `event.detail.status`), and
 * `paykit-error` (`event.detail`: the `Error`), both bubbling out of its shadow root. With `renewPayin`
 * set, an expired PIX or boleto offers a new one.
 */
export interface PaykitPaymentElement extends HTMLElement {
  /** The 201 answer of `POST /payin`; the `payin` attribute holds it as JSON. */
  payin: CheckoutPayin | null;
  /** URL of the merchant's `createPaymentStatus` handler; attribute `status-url`. */
  statusUrl: string | null;
  /** `pt-BR` (default) or `en`; attribute `locale`. */
  locale: string | null;
  /** When the payment expires (ISO 8601 or `Date`); attribute `expires-at`. */
  expiresAt: Date | string | null;
  /** URL of the shipped checkout.css, for browsers without constructable stylesheets; attribute `stylesheet-url`. */
  stylesheetUrl: string | null;
  /** Your own wording for some texts (property only). */
  strings: Partial<CheckoutStrings> | null;
  /** The card data for a PENDING_3DS payin's confirmation (property only: card data never goes in markup). */
  threeDS: CheckoutThreeDS | null;
  /**
   * Offers a new PIX or boleto when this one expires (property only): `onRenew` of `mountPayment`. The shopper's
   * "Gerar novo Pix" calls it with the expired payin; it asks your backend for a new payin of the order and gives
   * (or resolves with) its 201 body. Not named `onRenew`: frameworks read `on…` properties as event listeners
   * (docs/decisions/checkout-renew.md).
   * @example
   * payment.renewPayin = () => fetch("/orders/42/payin", { method: "POST" }).then((answer) => answer.json());
   */
  renewPayin: MountPaymentOptions["onRenew"] | null;
}

declare global {
  interface HTMLElementTagNameMap {
    "paykit-payment": PaykitPaymentElement;
  }
  interface HTMLElementEventMap {
    "paykit-final": CustomEvent<PaymentStatusUpdate>;
    "paykit-error": CustomEvent<Error>;
  }
}

// Property name → attribute name; the last three are properties only.
const ATTRIBUTES: Record<string, string> = {
  payin: "payin",
  statusUrl: "status-url",
  locale: "locale",
  expiresAt: "expires-at",
  stylesheetUrl: "stylesheet-url",
  strings: "",
  threeDS: "",
  renewPayin: "",
};

/**
 * Registers `<paykit-payment>` (or your `tagName`) in this window's custom element registry; a second call,
 * or one on a server without `customElements`, does nothing. Importing `@paykit/browser/checkout/element`
 * calls it for you.
 * @example
 * definePaykitPayment();
 * // <paykit-payment status-url="/payment-status" payin='{"id":"pi_…","paymentMethod":"PIX",…}'></paykit-payment>
 * document.querySelector("paykit-payment")!.addEventListener("paykit-final", (event) => {
 *   if (event.detail.status === "APPROVED") showOrderConfirmed();
 * });
 */
export function definePaykitPayment(tagName = "paykit-payment"): void {
  const registry = globalThis.customElements;
  if (!registry || registry.get(tagName)) return;

  // Declared here, not at module level: `HTMLElement` does not exist during server-side rendering.
  class PaykitPayment extends HTMLElement {
    declare _v: Record<string, unknown>;
    declare _s: (() => void) | undefined;
    declare _q: boolean;

    static get observedAttributes() {
      return Object.values(ATTRIBUTES).filter(Boolean);
    }

    connectedCallback() {
      // A property a framework set before this class was defined is the element's own and hides the accessor
      // below: handed to the accessor here, it reaches the screen (the "upgrade" of a custom element's property).
      // getOwnPropertyDescriptor rather than Object.hasOwn, which Safari has only since 15.4.
      const own = this as unknown as Record<string, unknown>;
      for (const name in ATTRIBUTES) {
        if (Object.getOwnPropertyDescriptor(own, name)) {
          const value = own[name];
          delete own[name];
          own[name] = value;
        }
      }
      this._u();
    }

    // Stops the screen: render() draws nothing on an element that is not connected.
    disconnectedCallback() {
      this._r();
    }

    attributeChangedCallback() {
      this._u();
    }

    // Several properties set in a row render once, after them.
    _u() {
      if (this._q) return;
      this._q = true;
      queueMicrotask(() => {
        this._q = false;
        this._r();
      });
    }

    _r() {
      this._s?.();
      this._s = undefined;
      const self = this as unknown as PaykitPaymentElement;
      if (!this.isConnected || !self.statusUrl || !(this._v?.payin || this.getAttribute("payin"))) return;
      const emit = (type: string, detail: unknown) =>
        this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
      try {
        if (!self.payin) throw new PaykitCheckoutError("INVALID_OPTIONS", "The payin attribute is not JSON.");
        const options = {
          onFinal: (status: PaymentStatusUpdate) => emit("paykit-final", status),
          onError: (error: Error) => emit("paykit-error", error),
          onRenew: self.renewPayin,
        } as unknown as MountPaymentOptions;
        // Every property that is set (payin and statusUrl are, above), under the same name; renewPayin is onRenew.
        for (const name in ATTRIBUTES) {
          const value = self[name as keyof PaykitPaymentElement];
          if (value) (options as unknown as Record<string, unknown>)[name] = value;
        }
        this._s = renderPayment(this.shadowRoot ?? this.attachShadow({ mode: "open" }), options);
      } catch (error) {
        emit("paykit-error", error);
      }
    }
  }

  for (const [name, attribute] of Object.entries(ATTRIBUTES)) {
    Object.defineProperty(PaykitPayment.prototype, name, {
      get(this: PaykitPayment) {
        const value = this._v?.[name];
        if (value !== undefined || !attribute) return value ?? null;
        const text = this.getAttribute(attribute);
        if (name !== "payin" || text === null) return text;
        try {
          return JSON.parse(text);
        } catch {
          // A getter does not throw: rendering reports the bad attribute as a `paykit-error` event.
          return null;
        }
      },
      set(this: PaykitPayment, value: unknown) {
        this._v = { ...this._v, [name]: value ?? undefined };
        this._u();
      },
    });
  }
  registry.define(tagName, PaykitPayment);
}
