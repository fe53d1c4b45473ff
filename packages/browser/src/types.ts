// These types describe only what the 3DS flow reads, so the published .d.ts stands alone (the contract is
// not a runtime dependency of this package). test/types.test-d.ts proves that the contract's
// CreditCardPayinCreated, PendingThreeDSPayin, Card and Customer fit them, so they cannot drift.

/** The fields of a CREDIT_CARD payin's 201 answer that the 3DS flow reads; any `CreditCardPayinCreated` fits. */
export interface ThreeDSPayinResponse {
  /** The payin's id (`pi_…`). */
  id: string;
  /** `PENDING_3DS` when a post-order challenge is open. */
  status: string;
  /** `CREDIT_CARD` for a payin that can have a 3DS challenge. */
  paymentMethod?: string;
  /** `true`: a challenge is open. */
  threeDSecurePending?: boolean;
  /** Session token that initialises the acquirer's SDK. */
  threeDSecureSession?: string;
  /** The acquirer's 3DS transaction id. */
  threeDSecureTransactionId?: string;
  /** URL of the acquirer's SDK script. */
  threeDSecureSdkUrl?: string;
}

/** The card of the payin, by its data or by the acquirer's token; handed to the acquirer's script only. */
export type ThreeDSCard =
  | { token: string }
  | { holderName: string; number: string; expirationMonth: string; expirationYear: string; cvv: string };

/** The paying customer of the payin, as sent in POST /payin. */
export interface ThreeDSCustomer {
  name: string;
  document: string;
  email: string;
  phone: string;
}

/** What the acquirer's challenge needs besides the payin answer: the same values as the payin request. */
export interface ThreeDSChallengeData {
  /** The card as sent in the payin. */
  card: ThreeDSCard;
  /** The customer as sent in the payin. */
  customer: ThreeDSCustomer;
  /** The payin amount, in cents. */
  amount: number;
  /** The number of installments, 1 to 12. */
  installments: number;
}

/** What the customer chose in the challenge; the payment's final status still comes from the server. */
export type ThreeDSStatus = "AUTHENTICATED" | "REJECTED" | "CANCELED";

/** The customer's decision in the 3DS challenge of a payin. */
export interface ThreeDSResult {
  /** `AUTHENTICATED` or `REJECTED` (the service then moves the payin to APPROVED or REFUSED), or `CANCELED` (the payin stays PENDING_3DS). */
  status: ThreeDSStatus;
  /** The payin's id, to tell the merchant backend which payin to watch. */
  payinId: string;
  /** The acquirer's 3DS transaction id. */
  transactionId: string;
}

/** A step of the 3DS flow, for the checkout page's own progress UI. */
export type ThreeDSEventType =
  | "script-loading"
  | "script-loaded"
  | "challenge-opened"
  | "challenge-completed";

/** A progress notice of the 3DS flow of one payin. */
export interface ThreeDSEvent {
  /** Which step was reached. */
  type: ThreeDSEventType;
  /** The payin's id. */
  payinId: string;
  /** The acquirer's 3DS transaction id. */
  transactionId: string;
  /** The customer's decision, on `challenge-completed`. */
  status?: ThreeDSStatus;
}

/** The arguments of the acquirer's `session.challenge` (docs/decisions/three-ds.md). */
export interface AcquirerChallengeParams extends ThreeDSChallengeData {
  /** The acquirer's 3DS transaction id. */
  transactionId: string;
  /** Where the challenge renders; without it the acquirer's script opens a modal. */
  container?: HTMLElement;
  /**
   * Aborted when the checkout gives up on the challenge (`challengeTimeoutMs` passed, or the page's own
   * `signal`): the acquirer's script then removes its challenge and rejects.
   */
  signal?: AbortSignal;
}

/** An initialised session of the acquirer's 3DS SDK. */
export interface AcquirerThreeDSSession {
  /** Opens the challenge and resolves with the customer's decision. */
  challenge(params: AcquirerChallengeParams): Promise<{ outcome: ThreeDSStatus }>;
}

/** The SDK an acquirer's 3DS script defines as `globalThis.AcquirerThreeDS` (docs/decisions/three-ds.md). */
export interface AcquirerThreeDS {
  /** Starts a session from the payin's `threeDSecureSession` token. */
  init(params: { session: string }): Promise<AcquirerThreeDSSession>;
}
