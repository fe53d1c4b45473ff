export * from "./boleto.js";
export * from "./br-code.js";
export { Card, CardData, CardToken, Installments } from "./card.js";
export {
  Address,
  Cpf,
  Customer,
  CustomerRecord,
  Email,
  OpenFinanceCustomer,
  Phone,
  Uf,
  ZipCode,
} from "./customer.js";
export {
  ERROR_CODES,
  ERROR_STATUS,
  ErrorBody,
  type ErrorCode,
  ErrorDetail,
  isKnownErrorCode,
  type KnownErrorCode,
} from "./error.js";
export { Cents, HttpUrl, Ipv4, IsoDateTime, ReferenceId } from "./fields.js";
export { KEY_PREFIXES, keyMode, PAYIN_ID_PREFIX, PAYOUT_ID_PREFIX } from "./ids.js";
export { buildOpenApiDocument } from "./openapi.js";
export {
  Antifraud,
  BoletoPayinCreated,
  BoletoPayinCreateParams,
  CreditCardPayinCreated,
  CreditCardPayinCreateParams,
  Item,
  ItemRecord,
  isPendingThreeDS,
  OpenFinancePayinCreated,
  OpenFinancePayinCreateParams,
  PAYIN_CREATED_BY_METHOD,
  Payin,
  PayinCreated,
  type PayinCreatedFor,
  PayinCreateParams,
  type PendingThreeDSPayin,
  PixPayinCreated,
  PixPayinCreateParams,
  Split,
} from "./payin.js";
export {
  PAYOUT_LIST_DEFAULTS,
  PageMeta,
  Payout,
  PayoutCreateParams,
  PayoutList,
  PayoutListQuery,
  PixKeyTypeSchema,
} from "./payout.js";
export {
  DEFAULT_FEES,
  DEFAULT_PAYOUT_LIMITS,
  type FeeSchedule,
  isPayoutNightTime,
  type PayinFeeRule,
  type PayoutLimits,
  payinFee,
  payoutLimitAt,
  percentOf,
  saoPauloHour,
} from "./pricing.js";
export * from "./status.js";
export { issuesToDetails, type ValidationResult, validate } from "./validate.js";
export * from "./validators/index.js";
export {
  PayinWebhookBody,
  PayoutWebhookBody,
  WEBHOOK_HEADERS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookKindOf,
} from "./webhook.js";
