/**
 * A payment's status from the webhook to the shopper's page: the payment-status endpoint
 * (`createPaymentStatus`: JSON and server-sent events, `authorize` required), its in-process store, and
 * the node:http adapter for Express, Fastify and NestJS. Shared stores for several instances live in
 * `@paykit/node/checkout/redis` and `@paykit/node/checkout/postgres`. Guide: docs/checkout.md.
 *
 * @packageDocumentation
 * @module @paykit/node/checkout
 */
export { type MemoryStatusStoreOptions, memoryStatusStore } from "./memory-store.js";
export {
  type NodeListener,
  type NodeRequestLike,
  type NodeResponseLike,
  toNodeListener,
} from "./node-adapter.js";
export {
  type AuthorizePaymentStatus,
  createPaymentStatus,
  DEFAULT_MAX_STREAMS,
  type PaymentStatusEndpoint,
  type PaymentStatusOptions,
  type PaymentStatusStats,
} from "./payment-status.js";
export type { PublicPayinField, PublicPaymentStatus } from "./public-status.js";
export { eventIdOf } from "./sse.js";
export type { PaymentStatus, PaymentStatusStore, Unsubscribe } from "./store.js";
