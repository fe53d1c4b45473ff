/** Why a webhook delivery failed verification; branch on this, not on the message. */
export type WebhookVerificationErrorCode =
  | "SECRET_MISSING"
  | "EMPTY_BODY"
  | "BODY_NOT_RAW"
  | "WRONG_CONTENT_TYPE"
  | "MISSING_HEADERS"
  | "INVALID_SECRET"
  | "INVALID_TIMESTAMP"
  | "TIMESTAMP_OUT_OF_TOLERANCE"
  | "NO_SIGNATURE"
  | "SIGNATURE_MISMATCH";

/** Why a webhook body could not be read as a payin or payout event. */
export type WebhookParseErrorCode =
  | "EMPTY_BODY"
  | "INVALID_JSON"
  | "UNKNOWN_KIND"
  | "INVALID_BODY"
  | "BODY_ALREADY_READ";

/** One field of a webhook body that does not match the contract. */
export interface WebhookBodyIssue {
  /** Dot path of the field, e.g. `customer.email`. */
  path: string;
  /** What is wrong with it. */
  message: string;
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * A webhook delivery that must not be trusted: the signature, timestamp or headers do not prove it
 * came from Paykit. Answer it with a 400 and do not act on it.
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  /** Why verification failed. */
  readonly code: WebhookVerificationErrorCode;
  /** Always false: the same bytes will fail the same way; fix the secret or the body handling. */
  readonly retryable = false;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  /** A JSON view without the delivery's body or secret. */
  toJSON(): { name: string; code: WebhookVerificationErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }

  /** What `console.log`/`util.inspect` show: name, code and message, never the body or the secret. */
  [INSPECT](): string {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

/** A webhook body that is not JSON, or not a payin or payout body of the contract. */
export class WebhookParseError extends Error {
  override readonly name = "WebhookParseError";
  /** Why the body could not be read. */
  readonly code: WebhookParseErrorCode;
  /** Every field that does not match the contract (for `INVALID_BODY`). */
  readonly details: WebhookBodyIssue[];
  /** Always false: the same body will fail the same way. */
  readonly retryable = false;

  constructor(code: WebhookParseErrorCode, message: string, details: WebhookBodyIssue[] = []) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** A JSON view of the error. */
  toJSON(): { name: string; code: WebhookParseErrorCode; message: string; details: WebhookBodyIssue[] } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }

  /** What `console.log`/`util.inspect` show: name, code and message, never the body or the secret. */
  [INSPECT](): string {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

/** Whether `error` is a {@link WebhookVerificationError}, also across realms (checks `name`). */
export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return error instanceof Error && error.name === "WebhookVerificationError";
}

/** Whether `error` is a {@link WebhookParseError}, also across realms (checks `name`). */
export function isWebhookParseError(error: unknown): error is WebhookParseError {
  return error instanceof Error && error.name === "WebhookParseError";
}
