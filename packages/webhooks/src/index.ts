/**
 * Parse and verify Paykit webhook deliveries (Standard Webhooks signatures) and handle each one once.
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
export { type ParseWebhookOptions, parseWebhook } from "./parse.js";
export { type ParseWebhookRequestOptions, parseWebhookRequest } from "./request.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookSecretInput,
} from "./verify.js";
