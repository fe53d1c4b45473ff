/**
 * Why a 3DS flow broke, stable across versions: branch on it, never on the message.
 * - `NOT_PENDING`: the payin answer is not a card payin waiting for its 3DS challenge.
 * - `SCRIPT_LOAD_FAILED`: the acquirer's script could not be loaded (network, 404, CSP, SRI, or no browser).
 * - `SCRIPT_TIMEOUT`: the acquirer's script did not load in time.
 * - `SDK_MISSING`: the script loaded but does not define the acquirer SDK (docs/decisions/three-ds.md).
 * - `CHALLENGE_FAILED`: the acquirer's SDK threw or answered something outside its contract.
 * - `CHALLENGE_UNAVAILABLE`: the acquirer has no open challenge for this payin: already decided, or unknown to it
 *   (a stale 201 answer). Read the payin's status from your backend.
 * - `CHALLENGE_EXPIRED`: the payin's challenge expired before the customer decided (the payin is EXPIRED).
 * - `CHALLENGE_TIMEOUT`: the customer did not finish the challenge within `challengeTimeoutMs`.
 * - `ABORTED`: the caller's `AbortSignal` stopped the flow.
 * - `SECRET_KEY_IN_BROWSER`: a secret key (`sk_…`) was handed to this browser package.
 */
export type ThreeDSErrorCode =
  | "NOT_PENDING"
  | "SCRIPT_LOAD_FAILED"
  | "SCRIPT_TIMEOUT"
  | "SDK_MISSING"
  | "CHALLENGE_FAILED"
  | "CHALLENGE_UNAVAILABLE"
  | "CHALLENGE_EXPIRED"
  | "CHALLENGE_TIMEOUT"
  | "ABORTED"
  | "SECRET_KEY_IN_BROWSER";

/**
 * The 3DS flow of a card payin broke before the customer could decide; the payin stays as it was (PENDING_3DS,
 * or already final for `CHALLENGE_UNAVAILABLE` and `CHALLENGE_EXPIRED`). Messages never contain card data or keys.
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

/** What the guard below reads of a value that may be a PaykitThreeDSError. */
type Guarded = { name?: unknown; code?: unknown };

/** Whether a failure of the 3DS flow is a {@link PaykitThreeDSError}; checks `name`, so it works across realms and bundles. */
export function isPaykitThreeDSError(error: unknown): error is PaykitThreeDSError {
  // No `instanceof`: an Error from another frame or another copy of this package must pass too.
  // A string or a number has no `name`; null and undefined stop at `?.`.
  return (
    (error as Guarded | null)?.name === "PaykitThreeDSError" && typeof (error as Guarded).code === "string"
  );
}
