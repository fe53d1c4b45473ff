/**
 * The merchant's server-side Paykit client: payins, PIX payouts, pagination, money-safe retries, typed errors and webhooks.
 *
 * @packageDocumentation
 * @module @paykit/node
 */
// What a merchant writes, from this one package: the contract's request and record types, the status
// guards (zod-free rules), and what a webhook receiver needs. Values come from light entry points
// only (`/rules`, `/errors`, `/dedupe`, `/order`), so importing the client loads no schema.
export type {
  Address,
  Antifraud,
  BoletoPayinCreateParams,
  Card,
  CardData,
  CardToken,
  CreditCardPayinCreateParams,
  Customer,
  ErrorCode,
  ErrorDetail,
  Item,
  KnownErrorCode,
  KnownPayinStatus,
  KnownPayoutStatus,
  OpenFinanceCustomer,
  OpenFinancePayinCreateParams,
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
  PendingThreeDSPayin,
  PixKeyType,
  PixPayinCreateParams,
} from "@paykit/contract";
export { isKnownPayinStatus, isKnownPayoutStatus } from "@paykit/contract/rules";
export type {
  ParseWebhookRequestOptions,
  PayinWebhookBody,
  PayinWebhookEvent,
  PayoutWebhookBody,
  PayoutWebhookEvent,
  RawWebhookBody,
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookHeaders,
  WebhookSecretInput,
} from "@paykit/webhooks";
export {
  type DedupBeginResult,
  type DedupOutcome,
  MemoryDedupStore,
  type MemoryDedupStoreOptions,
  WebhookDeduplicator,
  type WebhookDeduplicatorOptions,
  type WebhookDedupStore,
  webhookDedupKey,
} from "@paykit/webhooks/dedupe";
export {
  isWebhookParseError,
  isWebhookVerificationError,
  type WebhookBodyIssue,
  WebhookParseError,
  type WebhookParseErrorCode,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "@paykit/webhooks/errors";
export {
  MemoryOrderStore,
  type MemoryOrderStoreOptions,
  type OrderBegin,
  type OrderClaim,
  type OrderOutcome,
  type OrderState,
  type OrderVerdict,
  orderClaimOf,
  WebhookOrderGuard,
  type WebhookOrderGuardOptions,
  type WebhookOrderStore,
  type WebhookResourceKind,
  webhookOrderClaim,
  webhookOrderKey,
  webhookOrderVerdict,
} from "@paykit/webhooks/order";
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
export { PaymentWaitTimeoutError } from "./errors/wait-timeout-error.js";
export type { ConfirmedRecord, Payins, Payouts, WebhookParseOptions, Webhooks } from "./resources/index.js";
export type { FinalPayin, FinalPayinStatus, WaitForFinalOptions } from "./resources/wait-for-final.js";
export { VERSION } from "./version.js";
export { parseWebhookRequest, verifyWebhook } from "./webhook-readers.js";
