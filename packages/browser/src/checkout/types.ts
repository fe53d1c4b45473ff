// These types describe only what the screen reads, so the published .d.ts stands alone (the contract is not a
// runtime dependency of this package). test/checkout-types.test-d.ts proves that every PayinCreated of the
// contract fits CheckoutPayin, so they cannot drift.
import type { HandlePendingThreeDSOptions, handlePendingThreeDS } from "../three-ds.js";
import type { ThreeDSChallengeData, ThreeDSPayinResponse } from "../types.js";
import type { CheckoutStrings } from "./strings.js";

/** The 201 answer of `POST /payin` that the merchant's backend hands to the page; any `PayinCreated` fits. */
export interface CheckoutPayin extends ThreeDSPayinResponse {
  /** `PIX`, `BOLETO`, `OPEN_FINANCE` or `CREDIT_CARD`. */
  paymentMethod: string;
  /** The amount in cents, shown formatted in BRL. */
  amount?: number;
  /** When the payin was created (ISO 8601): the PIX and BOLETO expiry is counted from it. */
  createdAt?: string;
  /** PIX: the BR Code (EMV) to show as QR code and as copy-and-paste text. */
  pix?: { qrcode: string };
  /** BOLETO: the 47-digit digitable line and the URL of its PDF. */
  boleto?: { barcode: string; url: string };
  /** OPEN_FINANCE: where the shopper authorizes the payment at the bank. */
  openFinanceRedirectUrl?: string;
}

/** One answer of the payment-status endpoint (`createPaymentStatus` of `@paykit/node/checkout`). */
export interface PaymentStatusUpdate {
  /** The payin's id. */
  id: string;
  /** `PENDING`, `PENDING_3DS`, or a final status: `APPROVED`, `REFUSED`, `EXPIRED`. */
  status: string;
  /** The payin's method. */
  paymentMethod: string;
  /** When the status last changed (ISO 8601). */
  updatedAt: string;
  /** The amount in cents, when the merchant opted into it on the server (`fields: ["amount"]`). */
  amount?: number;
  /** The merchant's order id, when the merchant opted into it on the server (`fields: ["referenceId"]`). */
  referenceId?: string | null;
}

/**
 * What the screen needs to run the bank's 3DS confirmation of a CREDIT_CARD payin answered PENDING_3DS, with the
 * options of `handlePendingThreeDS` (`nonce`, `timeoutMs`, `challengeTimeoutMs`, …). The screen sets `container`
 * (inside itself) and `signal` (aborted by `unmount()`).
 */
export interface CheckoutThreeDS extends HandlePendingThreeDSOptions {
  /** The card, customer, amount and installments of the payin, as the page sent them. */
  data: ThreeDSChallengeData;
  /**
   * `handlePendingThreeDS` of `@paykit/browser` (with the `<script>` builds: `Paykit.handlePendingThreeDS`).
   * Passed in rather than imported, so that a checkout without cards does not carry the 3DS flow.
   */
  handlePendingThreeDS: typeof handlePendingThreeDS;
}

/** How {@link mountPayment} shows one payin. */
export interface MountPaymentOptions {
  /** The 201 answer of `POST /payin`, as the merchant's backend passed it to the page. */
  payin: CheckoutPayin;
  /** URL of the merchant's `createPaymentStatus` handler; the screen appends `?id=` (or `&id=`). */
  statusUrl: string;
  /**
   * Language of the screen: `pt-BR` or `en` (any `en-*` tag is `en`).
   * @default "pt-BR"
   */
  locale?: string;
  /** Your own wording for some of the texts; the others come from `locale`. */
  strings?: Partial<CheckoutStrings>;
  /**
   * When the payment expires: a `Date` or an ISO 8601 string. The screen stops waiting then. One that is not a
   * valid date counts as not given.
   * @default PIX: `createdAt` + 1 h; BOLETO: `createdAt` + 3 days (docs/payins.md); others: none
   */
  expiresAt?: Date | string;
  /**
   * Called once with the final status object the server reported (`{ id, status, paymentMethod, updatedAt }`;
   * `status` is APPROVED, REFUSED or EXPIRED); `<paykit-payment>`'s `paykit-final` event carries the same
   * object as `event.detail`. With `onRenew`, the EXPIRED of a PIX or boleto is not the end (the shopper may
   * renew it): `onFinal` reports the payin that ended the screen, such as the renewed one the shopper paid.
   */
  onFinal?: (status: PaymentStatusUpdate) => void;
  /**
   * Offers a new PIX or boleto when this one expires: the expired screen shows "Gerar novo Pix" ("Gerar novo
   * boleto"), and pressing it calls `onRenew(expired)`, which asks your backend for a new payin for the same order
   * and gives (or resolves with) its 201 body. The screen then shows and follows the new payin instead of the
   * expired one, checked as `payin` is. When it throws, rejects or gives something else, the screen says the new
   * payment could not be created and offers to try again; the error is yours (the screen does not report it to
   * `onError`). A new payin expires at its own `createdAt` plus the documented expiry (`expiresAt` is the first
   * payin's). Read at mount; without it, an expired payin ends the screen, as before.
   * @example
   * onRenew: async () => (await fetch("/orders/42/payin", { method: "POST" })).json()
   */
  onRenew?: (expired: CheckoutPayin) => CheckoutPayin | PromiseLike<CheckoutPayin>;
  /** Called when the status cannot be followed (unknown payin, endpoint failing) or the 3DS confirmation broke. */
  onError?: (error: Error) => void;
  /** Required to run the 3DS confirmation of a CREDIT_CARD payin in PENDING_3DS; without it the screen only waits. */
  threeDS?: CheckoutThreeDS;
  /**
   * URL of `@paykit/browser/checkout.css` served by your site, for browsers without constructable stylesheets
   * under a strict CSP. Without it such a browser gets a `<style>` element (fine where CSP allows inline styles).
   */
  stylesheetUrl?: string;
}

/** A mounted payment screen. */
export interface MountedPayment {
  /** Removes the screen and stops everything it started: no timer, stream or request is left. */
  unmount(): void;
}
