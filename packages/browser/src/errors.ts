/**
 * Why a 3DS flow broke, stable across versions: branch on it, never on the message.
 * - `NOT_PENDING`: the payin answer is not a card payin waiting for its 3DS challenge.
 * - `SCRIPT_LOAD_FAILED`: the acquirer's script could not be loaded (network, 404, CSP, SRI, or no browser).
 * - `SCRIPT_TIMEOUT`: the acquirer's script did not load in time.
 * - `SDK_MISSING`: the script loaded but does not define the acquirer SDK (DESIGN.md section 4).
 * - `CHALLENGE_FAILED`: the acquirer's SDK threw or answered something outside its contract.
 * - `ABORTED`: the caller's `AbortSignal` stopped the flow.
 * - `SECRET_KEY_IN_BROWSER`: a secret key (`sk_…`) was handed to this browser package.
 */
export type ThreeDSErrorCode =
  | "NOT_PENDING"
  | "SCRIPT_LOAD_FAILED"
  | "SCRIPT_TIMEOUT"
  | "SDK_MISSING"
  | "CHALLENGE_FAILED"
  | "ABORTED"
  | "SECRET_KEY_IN_BROWSER";

/**
 * The 3DS flow of a card payin broke before the customer could decide; the payin stays PENDING_3DS.
 * Messages never contain card data or keys.
 */
export class PaykitThreeDSError extends Error {
  /** What broke; see {@link ThreeDSErrorCode}. */
  // `declare`: assigned in the constructor, so no class-field helper lands in the IIFE's byte budget.
  declare readonly code: ThreeDSErrorCode;

  /** Builds the error; `cause` keeps the underlying failure (a script event, the acquirer's error). */
  constructor(code: ThreeDSErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaykitThreeDSError";
    this.code = code;
  }
}

/** Whether a failure of the 3DS flow is a {@link PaykitThreeDSError}; checks `name`, so it works across realms and bundles. */
export function isPaykitThreeDSError(error: unknown): error is PaykitThreeDSError {
  // No `instanceof`: an Error from another frame or another copy of this package must pass too.
  const e = error as { name?: unknown; code?: unknown } | null;
  return typeof e === "object" && e !== null && e.name === "PaykitThreeDSError" && typeof e.code === "string";
}
