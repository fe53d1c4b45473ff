export type {
  AccountBalance,
  AccountKeys,
  AccountView,
  CreateAccountParams,
  FeeOverrides,
  PayoutApproval,
  UpdateAccountParams,
} from "./accounts.js";
export {
  type ClockView,
  type MockControl,
  MockControlError,
  type SetClockParams,
} from "./control.js";
export type { DeliveryConcurrency } from "./delivery-slots.js";
export { type CreateEngineOptions, createEngine, type MockEngine } from "./engine.js";
export type { Fault, FaultParams, RateLimitParams } from "./faults.js";
export { type EngineRequest, type EngineResponse, MAX_BODY_BYTES } from "./http.js";
export {
  CONTROL_LIST_LIMIT,
  type ListOptions,
  type PayinView,
  type PayoutView,
} from "./lists.js";
export { MAGIC_CARDS, MAGIC_PIX_KEYS, RISK_EMAIL_SUFFIX, TEMPORARY_UNAVAILABLE_AMOUNT } from "./magic.js";
export type { WebhookAttempt, WebhookDelivery, WebhookFetch } from "./outbox.js";
export { BOLETO_EXPIRY_MS, PIX_EXPIRY_MS, type ThreeDSOutcome } from "./payins.js";
export {
  type PixDirectoryMode,
  type PixKeyEntry,
  type RegisterPixKeyParams,
  SEED_PIX_KEYS,
} from "./pix-directory.js";
export type { StatusChange } from "./records.js";
export { type EngineOptions, MOCK_ACQUIRER_ISPB } from "./state.js";
export { readWebRequest, toWebResponse } from "./web.js";
