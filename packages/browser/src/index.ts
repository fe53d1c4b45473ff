/**
 * Post-order 3DS in the customer's browser: handlePendingThreeDS and the acquirer-script loader.
 *
 * @packageDocumentation
 * @module @paykit/browser
 */
export { isPaykitThreeDSError, PaykitThreeDSError, type ThreeDSErrorCode } from "./errors.js";
export { type LoadScriptOptions, loadScript } from "./load-script.js";
export { type HandlePendingThreeDSOptions, handlePendingThreeDS } from "./three-ds.js";
export type {
  AcquirerChallengeParams,
  AcquirerThreeDS,
  AcquirerThreeDSSession,
  ThreeDSCard,
  ThreeDSChallengeData,
  ThreeDSCustomer,
  ThreeDSEvent,
  ThreeDSEventType,
  ThreeDSPayinResponse,
  ThreeDSResult,
  ThreeDSStatus,
} from "./types.js";
