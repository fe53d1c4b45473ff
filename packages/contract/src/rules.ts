/**
 * The rules of the contract that are not schemas, without zod: statuses and their transitions, id and
 * key prefixes, amount maxima and the webhook headers, retry delays and tolerance. For code that must
 * start fast (the node client loads the schemas only on first use).
 *
 * @packageDocumentation
 * @module @paykit/contract/rules
 */
export { MAX_AMOUNT_CENTS } from "./amounts.js";
export { KEY_PREFIXES, keyMode, PAYIN_ID_PREFIX, PAYOUT_ID_PREFIX } from "./ids.js";
export {
  canPayinTransition,
  canPayoutTransition,
  isFinalPayinStatus,
  isFinalPayoutStatus,
  isKnownPayinStatus,
  isKnownPayoutStatus,
  type KnownPayinStatus,
  type KnownPayoutStatus,
  PAYIN_INITIAL_STATUSES,
  PAYIN_STATUSES,
  PAYIN_TRANSITIONS,
  PAYMENT_METHODS,
  PAYOUT_DEBITING_STATUSES,
  PAYOUT_IN_FLIGHT_STATUSES,
  PAYOUT_INITIAL_STATUSES,
  PAYOUT_STATUSES,
  PAYOUT_TRANSITIONS,
  type PayinStatus,
  type PaymentMethod,
  type PayoutStatus,
} from "./status.js";
export { isStorableText, STORABLE_TEXT_MESSAGE } from "./storable-text.js";
export {
  WEBHOOK_HEADERS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookKindOf,
} from "./webhook-constants.js";
