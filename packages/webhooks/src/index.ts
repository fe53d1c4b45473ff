/**
 * Parse and verify Paykit webhook deliveries (Standard Webhooks signatures), handle each one once, and
 * apply each payin's and payout's in order.
 *
 * @packageDocumentation
 * @module @paykit/webhooks
 */
export type { PayinWebhookBody, PayoutWebhookBody } from "@paykit/contract";
export {
  type DedupBeginResult,
  type DedupOutcome,
  MemoryDedupStore,
  type MemoryDedupStoreOptions,
  WebhookDeduplicator,
  type WebhookDeduplicatorOptions,
  type WebhookDedupStore,
  webhookDedupKey,
} from "./dedupe.js";
export {
  isWebhookParseError,
  isWebhookVerificationError,
  type WebhookBodyIssue,
  WebhookParseError,
  type WebhookParseErrorCode,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from "./errors.js";
export type { PayinWebhookEvent, PayoutWebhookEvent, RawWebhookBody, WebhookEvent } from "./event.js";
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
} from "./order.js";
export { type ParseWebhookOptions, parseWebhook } from "./parse.js";
export { type ParseWebhookRequestOptions, parseWebhookRequest } from "./request.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookSecretInput,
} from "./verify.js";
