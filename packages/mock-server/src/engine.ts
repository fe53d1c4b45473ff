export type {
  ControlCall,
  ControlInput,
  ControlRequest,
  ControlScope,
} from "./control/call.js";
export {
  type ControlListQuery,
  type ControlMethods,
  type MockControl,
  MockControlError,
} from "./control/mock-control.js";
export {
  CONTROL_CALLS,
  type ControlCallName,
  type ControlCalls,
  type WebhookListOptions,
} from "./control/table.js";
export type {
  AccountBalance,
  AccountKeys,
  AccountView,
  CreateAccountParams,
  FeeOverrides,
  PayoutApproval,
  UpdateAccountParams,
} from "./domain/accounts.js";
export type {
  ClockView,
  ControlCallOptions,
  ControlListEntry,
  ControlListOptions,
  ListenerView,
  SetClockParams,
  WebhookSecretView,
} from "./domain/control.js";
export type { DeliveryFilter, WebhookAttempt, WebhookDelivery } from "./domain/deliveries.js";
export type { Fault, FaultParams, RateLimitParams } from "./domain/faults.js";
export type { ListenAck, ListenAttempt, ListenParams, ListenResult } from "./domain/listeners.js";
export {
  CONTROL_LIST_LIMIT,
  type ControlListName,
  type ListOptions,
  type ListPage,
  type PayinView,
  type PayoutView,
} from "./domain/lists.js";
export {
  MAGIC_CARDS,
  MAGIC_PIX_KEYS,
  RISK_EMAIL_SUFFIX,
  TEMPORARY_UNAVAILABLE_AMOUNT,
} from "./domain/magic.js";
export { BOLETO_EXPIRY_MS, PIX_EXPIRY_MS, type ThreeDSOutcome } from "./domain/payins.js";
export { MOCK_ACQUIRER_ISPB } from "./domain/payouts.js";
export {
  type PixDirectoryMode,
  type PixKeyEntry,
  type RegisterPixKeyParams,
  SEED_PIX_KEYS,
} from "./domain/pix-directory.js";
export type { StatusChange } from "./domain/records.js";
export { type CreateEngineOptions, createEngine, type MockEngine } from "./http/engine.js";
export type { EngineOptions } from "./http/engine-options.js";
export { type EngineRequest, type EngineResponse, MAX_BODY_BYTES } from "./http/messages.js";
export { readWebRequest, toWebResponse } from "./http/web.js";
export type { DeliveryConcurrency } from "./internal/delivery-slots.js";
export type { WebhookFetch } from "./work/sender.js";
