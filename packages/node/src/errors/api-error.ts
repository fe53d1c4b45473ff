import type { ErrorCode, ErrorDetail } from "@paykit/contract";
import { sentences, withoutStop } from "./message.js";
import { PaykitError, type PaykitErrorJSON } from "./paykit-error.js";

/** The facts of a non-2xx answer that every API error carries. */
export interface ApiErrorInit {
  /** HTTP status of the answer. */
  status: number;
  /** The answer's `code`, or `UNKNOWN_ERROR` when the body was not the service's JSON. */
  code: ErrorCode;
  /** The answer's `message`, or a description of the raw answer. */
  message: string;
  /** Field errors of an `INVALID_DATA` answer. */
  details?: ErrorDetail[];
  /** The parsed JSON body, or the raw text when it was not JSON (a proxy's HTML page). */
  body: unknown;
  /** The answer's headers (never the request's, which carry the credentials). */
  headers?: Headers;
  /** Method and path of the call, e.g. `POST /payout`. */
  request: string;
  /** The delay the service asks for before retrying, in ms (from `Retry-After`, or 5 min for TEMPORARY_UNAVAILABLE). */
  retryAfterMs?: number;
  /** How many attempts the client made, when more than one. */
  attempts?: number;
  /** What the failure means for a creation (may it exist? how to check?), added after the advice. */
  note?: string;
  /** The client-made id of the request this answer came to. */
  requestId?: string | undefined;
}

/** "The service's message (POST /payout → 400 CODE, after 3 attempts). Advice. Note." */
function apiMessage(init: ApiErrorInit, advice: string): string {
  const attempts =
    init.attempts !== undefined && init.attempts > 1 ? `, after ${init.attempts} attempts` : "";
  return sentences(
    `${withoutStop(init.message)} (${init.request} → ${init.status} ${init.code}${attempts})`,
    advice,
    init.note,
  );
}

/** The code of an API answer whose body was not the service's JSON error body. */
export const UNKNOWN_ERROR = "UNKNOWN_ERROR";

/**
 * The service answered with an error status. Subclasses say what it means for the payment;
 * `code` is the service's code, `body` the raw answer.
 */
export class PaykitApiError extends PaykitError {
  override readonly name: string = "PaykitApiError";
  declare readonly code: ErrorCode;
  /** HTTP status of the answer. */
  readonly status: number;
  /** The parsed JSON body of the answer, or its raw text when it was not JSON. */
  readonly body: unknown;
  /** The answer's headers. */
  readonly headers: Headers;
  /** Method and path of the call that failed, e.g. `POST /payout`. */
  readonly request: string;
  /** How long the service asks to wait before trying again, in ms, when it says so. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit, advice: string, retryable = false) {
    super(apiMessage(init, advice), {
      code: init.code,
      retryable,
      details: init.details ?? [],
      requestId: init.requestId,
    });
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers ?? new Headers();
    this.request = init.request;
    this.retryAfterMs = init.retryAfterMs;
  }

  override toJSON(): PaykitErrorJSON {
    return {
      ...super.toJSON(),
      status: this.status,
      request: this.request,
      retryAfterMs: this.retryAfterMs,
      body: this.body,
    };
  }
}

/** 401: the key pair is wrong, revoked or from another environment. */
export class AuthenticationError extends PaykitApiError {
  override readonly name = "AuthenticationError";
  declare readonly code: "UNAUTHORIZED" | (string & {});
  constructor(init: ApiErrorInit) {
    super(init, "Check publicKey and secretKey (Dashboard → Integrations); live and test keys do not mix.");
  }
}

/** 403: the account may not do this yet (KYC not approved, credit card not enabled). */
export class PermissionError extends PaykitApiError {
  override readonly name = "PermissionError";
  declare readonly code: "KYC_NOT_APPROVED" | "CREDIT_CARD_NOT_ENABLED" | (string & {});
  constructor(init: ApiErrorInit) {
    super(
      init,
      init.code === "CREDIT_CARD_NOT_ENABLED"
        ? "Card payins need the extra KYC approval: ask Paykit support to enable credit cards."
        : "The account's KYC is not approved yet: finish it in the dashboard before using the API.",
    );
  }
}

/** 404: the payin does not exist or belongs to another account. */
export class NotFoundError extends PaykitApiError {
  override readonly name = "NotFoundError";
  declare readonly code: "NOT_FOUND" | (string & {});
  constructor(init: ApiErrorInit) {
    super(init, "Check the id and that it was created with this account's keys.");
  }
}

/** 400 INVALID_DATA: a field of the request is wrong; `details` names each one. */
export class InvalidRequestError extends PaykitApiError {
  override readonly name = "InvalidRequestError";
  declare readonly code: "INVALID_DATA" | (string & {});
  constructor(init: ApiErrorInit) {
    super(init, "Fix the fields listed in `details` and send again.");
  }
}

/** The codes of a payment the payer's side refused. */
export type PaymentRefusedCode = "REJECTED_BY_RISK" | "PAYER_LIMIT_REJECTED" | "INVALID_CVV";

const REFUSAL_ADVICE: Record<PaymentRefusedCode, string> = {
  REJECTED_BY_RISK: "The antifraud check denied it: do not retry; offer another payment method.",
  PAYER_LIMIT_REJECTED: "The card's limit is insufficient: ask the customer for another card or method.",
  INVALID_CVV: "Ask the customer to re-enter the card's security code.",
};

/** 400: the payment was refused for the payer (antifraud, card limit, wrong CVV); do not retry as is. */
export class PaymentRefusedError extends PaykitApiError {
  override readonly name = "PaymentRefusedError";
  declare readonly code: PaymentRefusedCode;
  constructor(init: ApiErrorInit) {
    super(init, REFUSAL_ADVICE[init.code as PaymentRefusedCode] ?? "");
  }
}

/** 400 INSUFFICIENT_FUNDS: the available balance (after reserves and pending payouts) is too low. */
export class InsufficientFundsError extends PaykitApiError {
  override readonly name = "InsufficientFundsError";
  declare readonly code: "INSUFFICIENT_FUNDS";
  constructor(init: ApiErrorInit) {
    super(
      init,
      "Wait for payins to settle or lower the amount; reserves and pending payouts are not available.",
    );
  }
}

/** 400 INVALID_PIX_KEY: the PIX key is malformed, of another type, or not in the directory. */
export class InvalidPixKeyError extends PaykitApiError {
  override readonly name = "InvalidPixKeyError";
  declare readonly code: "INVALID_PIX_KEY";
  constructor(init: ApiErrorInit) {
    super(init, "Ask the beneficiary to confirm the key and its type (CPF, CNPJ, EMAIL, PHONE, EVP).");
  }
}

/** 400 BEYOND_LIMITS: the amount exceeds the payout limit at this time of day (night: R$ 1.000). */
export class BeyondLimitsError extends PaykitApiError {
  override readonly name = "BeyondLimitsError";
  declare readonly code: "BEYOND_LIMITS";
  constructor(init: ApiErrorInit) {
    super(init, "Split the payout or send it after 06:00 São Paulo time.");
  }
}

/** The codes of a failure on the acquirer's or the banking system's side. */
export type ProviderErrorCode = "PROVIDER_ERROR" | "TEMPORARY_UNAVAILABLE" | "PROVIDER_REJECTED";

const PROVIDER_ADVICE: Record<ProviderErrorCode, string> = {
  PROVIDER_ERROR:
    "The acquirer failed temporarily; the payin was not created: retry later with the same data.",
  TEMPORARY_UNAVAILABLE: "The payout was not created; retry in 5 to 10 minutes (see retryAfterMs).",
  PROVIDER_REJECTED:
    "The banking system rejected the transfer; the payout exists as FAILED and its amount was returned to the balance.",
};

/** Five minutes: the service asks to retry TEMPORARY_UNAVAILABLE in 5 to 10 minutes (docs/errors-and-retries.md). */
export const TEMPORARY_UNAVAILABLE_RETRY_MS = 300_000;

/**
 * 502: the acquirer or banking system failed (PROVIDER_ERROR, TEMPORARY_UNAVAILABLE) or rejected
 * the transfer (PROVIDER_REJECTED). Never retried automatically: these answers are definite.
 */
export class ProviderError extends PaykitApiError {
  override readonly name = "ProviderError";
  declare readonly code: ProviderErrorCode;
  constructor(init: ApiErrorInit) {
    super(
      init.code === "TEMPORARY_UNAVAILABLE"
        ? { ...init, retryAfterMs: TEMPORARY_UNAVAILABLE_RETRY_MS }
        : init,
      PROVIDER_ADVICE[init.code as ProviderErrorCode] ?? "",
      init.code !== "PROVIDER_REJECTED",
    );
  }
}

/** 429: too many requests; `retryAfterMs` says when to try again. */
export class RateLimitError extends PaykitApiError {
  override readonly name = "RateLimitError";
  declare readonly code: "RATE_LIMITED" | (string & {});
  constructor(init: ApiErrorInit) {
    super(init, "Slow down: wait retryAfterMs before sending more requests.", true);
  }
}
