/**
 * Status vocabularies and the transition tables of payins and payouts (docs/decisions/payin-statuses.md,
 * docs/decisions/payout-statuses.md). The mock server moves resources only along these tables, and the
 * docs render them.
 */

/** The four ways a payer can pay a payin. */
export const PAYMENT_METHODS = ["PIX", "BOLETO", "CREDIT_CARD", "OPEN_FINANCE"] as const;
/** One of the four ways a payer can pay a payin. */
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Every payin status this version knows. */
export const PAYIN_STATUSES = ["PENDING", "APPROVED", "REFUSED", "PENDING_3DS", "EXPIRED"] as const;
/** A payin status this version knows. */
export type KnownPayinStatus = (typeof PAYIN_STATUSES)[number];
/** A payin status; the service may add new ones, so unknown strings are kept rather than rejected. */
export type PayinStatus = KnownPayinStatus | (string & {});

/** Every payout status this version knows. */
export const PAYOUT_STATUSES = [
  "AWAITING_APPROVAL",
  "PENDING",
  "PROCESSING",
  "APPROVED",
  "COMPLETED",
  "FAILED",
  "CANCELED",
  "REFUSED",
  "REFUNDED",
] as const;
/** A payout status this version knows. */
export type KnownPayoutStatus = (typeof PAYOUT_STATUSES)[number];
/** A payout status; unknown strings from a newer service are kept rather than rejected. */
export type PayoutStatus = KnownPayoutStatus | (string & {});

/** The statuses a payin can be created in, by method (spec: States and transitions). */
export const PAYIN_INITIAL_STATUSES: Readonly<Record<PaymentMethod, readonly KnownPayinStatus[]>> = {
  PIX: ["PENDING"],
  BOLETO: ["PENDING"],
  OPEN_FINANCE: ["PENDING"],
  CREDIT_CARD: ["APPROVED", "REFUSED", "PENDING_3DS"],
};

/**
 * Where a payin may go from each status; APPROVED, REFUSED and EXPIRED are final. PENDING_3DS → EXPIRED: the
 * customer never finished the 3DS challenge in time (docs/decisions/three-ds-challenge-expiry.md).
 */
export const PAYIN_TRANSITIONS: Readonly<Record<KnownPayinStatus, readonly KnownPayinStatus[]>> = {
  PENDING: ["APPROVED", "REFUSED", "EXPIRED"],
  PENDING_3DS: ["APPROVED", "REFUSED", "EXPIRED"],
  APPROVED: [],
  REFUSED: [],
  EXPIRED: [],
};

/**
 * The statuses a payout can be created in: PENDING (automatic approval), AWAITING_APPROVAL (manual
 * approval), or FAILED when the bank rejects it synchronously (502 PROVIDER_REJECTED).
 */
export const PAYOUT_INITIAL_STATUSES: readonly KnownPayoutStatus[] = [
  "PENDING",
  "AWAITING_APPROVAL",
  "FAILED",
];

/** Where a payout may go from each status; FAILED, REFUSED, CANCELED and REFUNDED are final. */
export const PAYOUT_TRANSITIONS: Readonly<Record<KnownPayoutStatus, readonly KnownPayoutStatus[]>> = {
  AWAITING_APPROVAL: ["APPROVED", "CANCELED"],
  APPROVED: ["PROCESSING"],
  PENDING: ["PROCESSING"],
  PROCESSING: ["COMPLETED", "FAILED", "REFUSED"],
  COMPLETED: ["REFUNDED"],
  FAILED: [],
  REFUSED: [],
  CANCELED: [],
  REFUNDED: [],
};

/** Payout statuses whose amount is still held against the balance (docs/decisions/balance.md). */
export const PAYOUT_DEBITING_STATUSES: readonly KnownPayoutStatus[] = [
  "AWAITING_APPROVAL",
  "APPROVED",
  "PENDING",
  "PROCESSING",
  "COMPLETED",
];

/** Payout statuses that are in flight: counted as `pending` in the account's balance. */
export const PAYOUT_IN_FLIGHT_STATUSES: readonly KnownPayoutStatus[] = [
  "AWAITING_APPROVAL",
  "APPROVED",
  "PENDING",
  "PROCESSING",
];

const KNOWN_PAYIN = new Set<string>(PAYIN_STATUSES);
const KNOWN_PAYOUT = new Set<string>(PAYOUT_STATUSES);

/**
 * Whether this version knows a payin status: narrows {@link PayinStatus} (which keeps a newer
 * service's statuses as plain strings) to {@link KnownPayinStatus}, so a `switch` over it can be
 * checked for exhaustiveness and the unknown case handled once, before it.
 * @example
 * if (!isKnownPayinStatus(payin.status)) return holdForReview(payin); // a status newer than this SDK
 * switch (payin.status) {
 *   case "APPROVED": return fulfil(payin);
 *   // … every other known status; a missing one is a type error below
 *   default: { const unhandled: never = payin.status; }
 * }
 */
export function isKnownPayinStatus(status: string): status is KnownPayinStatus {
  return KNOWN_PAYIN.has(status);
}

/** Whether this version knows a payout status: narrows {@link PayoutStatus} to {@link KnownPayoutStatus} (see {@link isKnownPayinStatus}). */
export function isKnownPayoutStatus(status: string): status is KnownPayoutStatus {
  return KNOWN_PAYOUT.has(status);
}

/** Whether a payin may move from `from` to `to` according to {@link PAYIN_TRANSITIONS}. */
export function canPayinTransition(from: PayinStatus, to: PayinStatus): boolean {
  return (PAYIN_TRANSITIONS[from as KnownPayinStatus] ?? []).includes(to as KnownPayinStatus);
}

/** Whether a payout may move from `from` to `to` according to {@link PAYOUT_TRANSITIONS}. */
export function canPayoutTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return (PAYOUT_TRANSITIONS[from as KnownPayoutStatus] ?? []).includes(to as KnownPayoutStatus);
}

/** Whether a payin status is final (no transition leaves it). Unknown statuses are not final. */
export function isFinalPayinStatus(status: PayinStatus): boolean {
  const next = PAYIN_TRANSITIONS[status as KnownPayinStatus];
  return next !== undefined && next.length === 0;
}

/** Whether a payout status is final (no transition leaves it). COMPLETED is not: it can be REFUNDED. */
export function isFinalPayoutStatus(status: PayoutStatus): boolean {
  const next = PAYOUT_TRANSITIONS[status as KnownPayoutStatus];
  return next !== undefined && next.length === 0;
}
