/**
 * A stateful mock of the whole Paykit payment service for integration tests, over node:http.
 *
 * @packageDocumentation
 * @module @paykit/mock-server
 */

export { createHttpControl, type HttpControlOptions } from "./control/http-client.js";
export {
  type DoctorCase,
  type DoctorReport,
  formatDoctorReport,
  runWebhookDoctor,
  type WebhookDoctorOptions,
} from "./doctor/doctor.js";
export {
  type PayinCreateParamsFor,
  SAMPLE_CARD,
  SAMPLE_CUSTOMER,
  SAMPLE_ITEMS,
  samplePayin,
  samplePayout,
  sampleReferenceId,
} from "./domain/samples.js";
export type {
  AccountBalance,
  AccountKeys,
  AccountView,
  ClockView,
  ControlCallOptions,
  ControlListEntry,
  ControlListName,
  ControlListOptions,
  ControlListQuery,
  CreateAccountParams,
  CreateEngineOptions,
  DeliveryConcurrency,
  DeliveryFilter,
  EngineOptions,
  EngineRequest,
  EngineResponse,
  Fault,
  FaultParams,
  FeeOverrides,
  ListenAck,
  ListenAttempt,
  ListenerView,
  ListenParams,
  ListenResult,
  ListOptions,
  ListPage,
  MockControl,
  MockEngine,
  PayinView,
  PayoutApproval,
  PayoutView,
  PixDirectoryMode,
  PixKeyEntry,
  RateLimitParams,
  RegisterPixKeyParams,
  SetClockParams,
  StatusChange,
  ThreeDSOutcome,
  UpdateAccountParams,
  WebhookAttempt,
  WebhookDelivery,
  WebhookFetch,
  WebhookListOptions,
  WebhookSecretView,
} from "./engine.js";
export {
  CONTROL_LIST_LIMIT,
  createEngine,
  MAGIC_CARDS,
  MAGIC_PIX_KEYS,
  MockControlError,
  RISK_EMAIL_SUFFIX,
  SEED_PIX_KEYS,
  TEMPORARY_UNAVAILABLE_AMOUNT,
} from "./engine.js";
export {
  type ListenedDelivery,
  type ListenOptions,
  type ListenReport,
  ListenStoppedError,
  runListener,
} from "./listen/listener.js";
export {
  DEFAULT_MOCK_URL,
  findTriggerScenario,
  runTriggerScenario,
  type TriggerDelivery,
  type TriggerOptions,
  type TriggerRun,
  type TriggerStepResult,
} from "./scenarios/run.js";
export type {
  ArgsAfterId,
  CreatePayinStep,
  CreatePayoutStep,
  PayinCallName,
  PayinCallStep,
  PayoutCallName,
  PayoutCallStep,
  TriggerOutcome,
  TriggerScenario,
  TriggerStep,
} from "./scenarios/scenario.js";
export { TRIGGER_SCENARIOS } from "./scenarios/scenarios.js";
export { type TriggerKeys, TriggerRefusedError } from "./scenarios/target.js";
export { type MockStoreOption, StoreInUseError } from "./stores/open-store.js";
export {
  createMockServer,
  type MockServer,
  type MockServerOptions,
} from "./transports/node/server.js";
