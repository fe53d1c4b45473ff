/**
 * Why the payment screen cannot follow a payin, stable across versions: branch on it, never on the message.
 * - `INVALID_OPTIONS`: `mountPayment` got no payin id, no payment method or no `statusUrl`.
 * - `NOT_FOUND`: the status endpoint does not know the payin (or refused to tell); the screen stopped.
 * - `STATUS_REJECTED`: the status endpoint refused the request for another reason (400, 401, 403, 405); stopped.
 * - `STATUS_UNAVAILABLE`: the status endpoint failed three times in a row; the screen keeps trying.
 */
export type CheckoutErrorCode = "INVALID_OPTIONS" | "NOT_FOUND" | "STATUS_REJECTED" | "STATUS_UNAVAILABLE";

/** The payment screen cannot follow the payin's status; the payin itself is unchanged. */
export class PaykitCheckoutError extends Error {
  /** What failed; see {@link CheckoutErrorCode}. */
  declare readonly code: CheckoutErrorCode;

  /** Builds the error; `cause` keeps the underlying failure. */
  constructor(code: CheckoutErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaykitCheckoutError";
    this.code = code;
  }
}
