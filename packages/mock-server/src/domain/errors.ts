import { ERROR_STATUS, type ErrorDetail, type KnownErrorCode } from "@paykit/contract";

/**
 * An error the service answers with its decided body `{ code, message, details? }`
 * (docs/decisions/error-body.md).
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** HTTP status of the answer. */
  readonly status: number;
  /** Stable error code. */
  readonly code: string;
  /** Failing fields of an `INVALID_DATA` answer. */
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (`Retry-After`, `Allow`). */
  readonly headers: Record<string, string> | undefined;
  /**
   * Whether what the request wrote before this refusal stands (a payout the bank rejected at creation
   * exists, FAILED); any other refusal changes nothing.
   */
  readonly keep: boolean;

  constructor(
    code: KnownErrorCode | (string & {}),
    message: string,
    options: {
      status?: number;
      details?: ErrorDetail[];
      headers?: Record<string, string>;
      keep?: boolean;
    } = {},
  ) {
    super(message);
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code as KnownErrorCode] ?? 500;
    this.details = options.details;
    this.headers = options.headers;
    this.keep = options.keep ?? false;
  }
}

/** An `INVALID_DATA` error naming one field. */
export function invalidData(path: string, message: string): ApiError {
  return new ApiError("INVALID_DATA", `${path} ${message}`, { details: [{ path, message }] });
}
