import type { ErrorDetail } from "@paykit/contract";
import { sentences } from "./message.js";
import { PaykitError } from "./paykit-error.js";

/**
 * A request refused by the client before sending: nothing reached the service. `details` has the
 * same shape as the service's `INVALID_DATA` answer, one entry per failing field.
 */
export class PaykitValidationError extends PaykitError {
  override readonly name = "PaykitValidationError";
  declare readonly code: "INVALID_DATA" | "INVALID_PIX_KEY";

  constructor(code: "INVALID_DATA" | "INVALID_PIX_KEY", message: string, details: ErrorDetail[]) {
    super(sentences(message, "Nothing was sent: fix the fields listed in `details`"), {
      code,
      retryable: false,
      details,
    });
  }
}

/** What is wrong with the client's configuration. */
export type ConfigErrorCode =
  | "MISSING_KEY"
  | "INVALID_KEY"
  | "SWAPPED_KEYS"
  | "KEY_MODE_MISMATCH"
  | "INVALID_BASE_URL"
  | "INVALID_OPTION"
  | "SECRET_KEY_IN_BROWSER";

/** The client's options are wrong (keys, baseUrl, limits); thrown by `new Paykit()` before any request. */
export class PaykitConfigError extends PaykitError {
  override readonly name = "PaykitConfigError";
  declare readonly code: ConfigErrorCode;

  constructor(code: ConfigErrorCode, message: string) {
    super(message, { code, retryable: false });
  }
}
