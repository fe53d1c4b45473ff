/**
 * The wire contract of the Paykit payment service: zod schemas and types for every request, response, record, webhook body and error body, Brazilian validators, PIX BR Codes and boleto lines. The OpenAPI document is built by `@paykit/contract/openapi`.
 *
 * @packageDocumentation
 * @module @paykit/contract
 */
export {
  BoletoError,
  type BoletoFields,
  boletoDueDateFactor,
  boletoDueDateFromFactor,
  buildBoletoBarcode,
  buildBoletoLine,
  isValidBoletoLine,
  type ParsedBoletoLine,
  parseBoletoLine,
} from "./boleto.js";
export {
  BrCodeError,
  type BrCodeFields,
  buildBrCode,
  crc16Ccitt,
  isValidBrCode,
  type ParsedBrCode,
  parseBrCode,
} from "./br-code.js";
export { Card, CardData, CardToken, Installments } from "./card.js";
export { compiled } from "./compiled.js";
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
export { type DateTimeBounds, dateTimeBounds, isIsoDateTime } from "./date-time.js";
export {
  ERROR_CODES,
  ERROR_STATUS,
  ErrorBody,
  type ErrorCode,
  ErrorDetail,
  isKnownErrorCode,
  type KnownErrorCode,
} from "./error.js";
export {
  CENTS_MESSAGE,
  Cents,
  centsUpTo,
  HttpUrl,
  Ipv4,
  IsoDateTime,
  MAX_AMOUNT_CENTS,
  ReferenceId,
  storableJson,
  storableString,
} from "./fields.js";
export { KEY_PREFIXES, keyMode, PAYIN_ID_PREFIX, PAYOUT_ID_PREFIX } from "./ids.js";
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
export {
  type FormatPaymentErrorOptions,
  formatPaymentError,
  SHOPPER_FIELD_PATHS,
  SHOPPER_MESSAGES_EN,
  SHOPPER_MESSAGES_PT_BR,
  type ShopperAction,
  type ShopperCatalog,
  type ShopperCatalogOverrides,
  type ShopperErrorMessage,
  type ShopperFieldPath,
  type ShopperFieldText,
  type ShopperLocale,
  type ShopperThreeDSCode,
} from "./shopper-messages.js";
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
export { isStorableText, STORABLE_TEXT_MESSAGE, unstorableTextPaths } from "./storable-text.js";
export { issuesToDetails, type ValidationResult, validate } from "./validate.js";
export {
  type CardBrand,
  cardBrand,
  cardLast4,
  isLuhnValid,
  isValidCardNumber,
  isValidCep,
  isValidCnpj,
  isValidCpf,
  isValidCvv,
  isValidEmail,
  isValidExpiry,
  isValidIpv4,
  isValidPhone,
  isValidPixKey,
  isValidUf,
  PIX_KEY_TYPES,
  type PixKeyType,
  pixKeyTypeOf,
  UF_CODES,
} from "./validators/index.js";
export {
  PayinWebhookBody,
  PayoutWebhookBody,
  WEBHOOK_HEADERS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookKindOf,
} from "./webhook.js";
