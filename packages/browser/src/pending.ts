import type { ThreeDSPayinResponse } from "./types.js";

// The contract's isPendingThreeDS, inlined so that no runtime import of @paykit/contract (and zod) reaches
// the bundle; src/pending.test.ts checks both agree on every case.
const FIELDS = ["threeDSecureSession", "threeDSecureTransactionId", "threeDSecureSdkUrl"] as const;

/** Why a payin answer is not a card payin waiting for its 3DS challenge, or `undefined` when it is. */
export function notPendingReason(payin: unknown): string | undefined {
  const p = (payin ?? {}) as Partial<ThreeDSPayinResponse>;
  if (p.paymentMethod !== "CREDIT_CARD" || p.status !== "PENDING_3DS" || p.threeDSecurePending !== true) {
    return `Payin ${p.id} is ${p.status}, not a CREDIT_CARD payin in PENDING_3DS with threeDSecurePending true.`;
  }
  const missing = FIELDS.find((field) => typeof p[field] !== "string");
  return missing && `Payin ${p.id} lacks ${missing}: pass the whole 201 answer.`;
}
