/**
 * The merchant's server-side Paykit client: payins, PIX payouts, pagination, money-safe retries, typed errors and webhooks.
 *
 * @packageDocumentation
 * @module @paykit/node
 */
export type {
  ErrorCode,
  ErrorDetail,
  Payin,
  PayinCreated,
  PayinCreatedFor,
  PayinCreateParams,
  PayinStatus,
  PaymentMethod,
  Payout,
  PayoutCreateParams,
  PayoutList,
  PayoutListQuery,
  PayoutStatus,
} from "@paykit/contract";
export type {
  PayinWebhookEvent,
  PayoutWebhookEvent,
  RawWebhookBody,
  WebhookEvent,
  WebhookHeaders,
} from "@paykit/webhooks";
export { WebhookParseError, WebhookVerificationError } from "@paykit/webhooks/errors";
export { Paykit, type PaykitDescription } from "./client.js";
export type { PaykitOptions, RequestOptions } from "./core/config.js";
export type {
  PaykitHooks,
  PayoutLookupEvent,
  RequestEvent,
  ResponseEvent,
  ResponseMismatchEvent,
  RetryEvent,
} from "./core/hooks.js";
export type { BackoffOptions } from "./core/retry-policy.js";
export {
  AuthenticationError,
  BeyondLimitsError,
  InsufficientFundsError,
  InvalidPixKeyError,
  InvalidRequestError,
  NotFoundError,
  PaykitApiError,
  type PaymentRefusedCode,
  PaymentRefusedError,
  PermissionError,
  ProviderError,
  type ProviderErrorCode,
  RateLimitError,
} from "./errors/api-error.js";
export {
  isPaykitApiError,
  isPaykitConnectionError,
  isPaykitError,
  isPaykitTimeoutError,
  isPaykitValidationError,
} from "./errors/guards.js";
export { PaykitError, type PaykitErrorJSON } from "./errors/paykit-error.js";
export {
  type ConnectionErrorCode,
  PaykitConnectionError,
  PaykitTimeoutError,
} from "./errors/transport-error.js";
export { type ConfigErrorCode, PaykitConfigError, PaykitValidationError } from "./errors/validation-error.js";
export type { ConfirmedRecord, Payins, Payouts, WebhookParseOptions, Webhooks } from "./resources/index.js";
export { VERSION } from "./version.js";
