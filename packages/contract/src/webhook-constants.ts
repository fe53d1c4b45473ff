// The webhook rules that are not schemas, without zod: `@paykit/contract/rules` exports them to code
// that must not load every schema at start (the node client's import path).

/** Which resource a webhook body is about: a payout's has `pixKey`, a payin's has `paymentMethod`. */
export function webhookKindOf(body: unknown): "payin" | "payout" | null {
  if (typeof body !== "object" || body === null) return null;
  if ("pixKey" in body) return "payout";
  if ("paymentMethod" in body) return "payin";
  return null;
}

/** The Standard Webhooks headers every delivery carries. */
export const WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** Default clock skew tolerated when verifying a webhook signature, in seconds. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Delays before each retry of a failed delivery, in ms: 8 attempts in all (docs/decisions/webhooks.md).
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000,
];

/** How long a receiver has to answer a delivery, in ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
