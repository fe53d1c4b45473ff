import * as z from "zod/mini";
import type { PayinStatus, PaymentMethod } from "./status.js";

/** The body of a payin webhook: exactly the spec's fields. */
export const PayinWebhookBody = z.looseObject({
  id: z.string(),
  status: z.string() as unknown as z.ZodMiniType<PayinStatus>,
  paymentMethod: z.string() as unknown as z.ZodMiniType<PaymentMethod | (string & {})>,
  amount: z.int(),
  referenceId: z.nullable(z.string()),
  customer: z.looseObject({ name: z.string(), email: z.string() }),
  updatedAt: z.string(),
});
/** The body of a payin webhook. */
export type PayinWebhookBody = z.infer<typeof PayinWebhookBody>;

/** The body of a payout webhook: the payout record without `bankReceipt`, with `failureCode`. */
export const PayoutWebhookBody = z.looseObject({
  id: z.string(),
  externalId: z.nullable(z.string()),
  status: z.string(),
  amount: z.int(),
  currency: z.string(),
  pixKey: z.string(),
  pixKeyType: z.string(),
  referenceId: z.string(),
  beneficiaryName: z.nullable(z.string()),
  beneficiaryDocument: z.nullable(z.string()),
  feeAmount: z.nullable(z.int()),
  netAmount: z.nullable(z.int()),
  failureCode: z.nullable(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** The body of a payout webhook. */
export type PayoutWebhookBody = z.infer<typeof PayoutWebhookBody>;

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

/** Delays before each retry of a failed delivery, in ms: 8 attempts in all (DESIGN.md: Webhooks). */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000,
];

/** How long a receiver has to answer a delivery, in ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
