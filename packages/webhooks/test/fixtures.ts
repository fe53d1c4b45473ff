import type { PayinWebhookBody, PayoutWebhookBody } from "@paykit/contract";

/** A payin webhook body exactly as docs/decisions/webhooks.md describes it. */
export const payinBody: PayinWebhookBody = {
  id: "pi_01JD0000000000000000000000",
  status: "APPROVED",
  paymentMethod: "PIX",
  amount: 10_000,
  referenceId: "order-1",
  customer: { name: "Maria Silva", email: "maria@example.com" },
  updatedAt: "2026-11-22T00:00:00.000Z",
};

/** A payout webhook body: the record without bankReceipt, with failureCode. */
export const payoutBody: PayoutWebhookBody = {
  id: "po_01JD0000000000000000000000",
  externalId: null,
  status: "FAILED",
  amount: 5_000,
  currency: "BRL",
  pixKey: "reject@bank.test",
  pixKeyType: "EMAIL",
  referenceId: "withdraw-1",
  beneficiaryName: "João Souza",
  beneficiaryDocument: "52998224725",
  feeAmount: null,
  netAmount: null,
  failureCode: "PROVIDER_REJECTED",
  createdAt: "2026-11-22T00:00:00.000Z",
  updatedAt: "2026-11-22T00:00:01.000Z",
};

/** A valid Standard Webhooks secret for tests. */
export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
