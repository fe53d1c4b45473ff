import type { CreditCardPayinCreated } from "@paykit/contract";
import type { ThreeDSChallengeData } from "../src/index.js";
import { freshScriptUrl } from "./acquirer-network.js";

/** The card that the mock answers PENDING_3DS (docs/decisions/magic-values.md). */
export const THREE_DS_CARD = {
  holderName: "MARIA SILVA",
  number: "4000000000003220",
  expirationMonth: "12",
  expirationYear: "2034",
  cvv: "123",
};

/** What the checkout page hands to handlePendingThreeDS besides the payin answer. */
export const challengeData: ThreeDSChallengeData = {
  card: THREE_DS_CARD,
  customer: {
    name: "Maria Silva",
    document: "52998224725",
    email: "maria@example.com",
    phone: "5511987654321",
  },
  amount: 10000,
  installments: 1,
};

/** A 201 answer to a CREDIT_CARD payin that waits for its 3DS challenge, with a fresh script URL. */
export function pendingPayin(overrides: Record<string, unknown> = {}): CreditCardPayinCreated {
  return {
    id: "pi_01JD3DS0000000000000000000",
    externalId: "acq_01JD3DS",
    referenceId: "order-3ds-1",
    status: "PENDING_3DS",
    amount: 10000,
    paymentMethod: "CREDIT_CARD",
    createdAt: "2025-01-15T12:00:00.000Z",
    threeDSecurePending: true,
    threeDSecureSession: "3ds_session_abc",
    threeDSecureTransactionId: "3ds_tx_123",
    threeDSecureSdkUrl: freshScriptUrl(),
    ...overrides,
  };
}
