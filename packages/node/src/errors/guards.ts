import type { PaykitApiError } from "./api-error.js";
import type { PaykitError } from "./paykit-error.js";
import type { PaykitConnectionError, PaykitTimeoutError } from "./transport-error.js";
import type { PaykitValidationError } from "./validation-error.js";

const API_ERROR_NAMES = new Set([
  "PaykitApiError",
  "AuthenticationError",
  "PermissionError",
  "NotFoundError",
  "InvalidRequestError",
  "PaymentRefusedError",
  "InsufficientFundsError",
  "InvalidPixKeyError",
  "BeyondLimitsError",
  "ProviderError",
  "RateLimitError",
]);

const ALL_NAMES = new Set([
  ...API_ERROR_NAMES,
  "PaykitError",
  "PaykitConnectionError",
  "PaykitTimeoutError",
  "PaykitValidationError",
  "PaykitConfigError",
  "PaymentWaitTimeoutError",
]);

// Guards check `name`, not `instanceof`, so they hold across realms and duplicated installs
// (docs/decisions/client-errors.md).
function named(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}

/** Whether `error` is any failure reported by the Paykit client. */
export function isPaykitError(error: unknown): error is PaykitError {
  const name = named(error);
  return name !== undefined && ALL_NAMES.has(name);
}

/** Whether `error` is an error answer of the service (any status). */
export function isPaykitApiError(error: unknown): error is PaykitApiError {
  const name = named(error);
  return name !== undefined && API_ERROR_NAMES.has(name);
}

/** Whether `error` means the request got no answer (refused, DNS, reset, aborted). */
export function isPaykitConnectionError(error: unknown): error is PaykitConnectionError {
  return named(error) === "PaykitConnectionError";
}

/** Whether `error` means no answer arrived within `timeoutMs`. */
export function isPaykitTimeoutError(error: unknown): error is PaykitTimeoutError {
  return named(error) === "PaykitTimeoutError";
}

/** Whether `error` is a request refused before sending. */
export function isPaykitValidationError(error: unknown): error is PaykitValidationError {
  return named(error) === "PaykitValidationError";
}
