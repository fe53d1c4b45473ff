import type { Payout, PayoutList } from "@paykit/contract";
import { SAMPLE_CARD, SAMPLE_CUSTOMER, SAMPLE_ITEMS, samplePayout } from "@paykit/mock-server";

/** A test key pair in the mock's shape. */
export const KEYS = { publicKey: "pk_test_public123", secretKey: "sk_test_SUPERSECRETvalue42" } as const;

/** The base URL the unit tests pretend to call. */
export const BASE_URL = "https://api.paykit.test/v1";

/** A valid customer with address (PIX, BOLETO, CREDIT_CARD): the mock package's sample. */
export const customer = SAMPLE_CUSTOMER;

/** The common fields of a payin request. */
export const payinBase = {
  amount: 10_000,
  referenceId: "order-1",
  isPhysicalProduct: false,
  payerIp: "203.0.113.7",
  customer,
  items: SAMPLE_ITEMS,
};

/** A card with a valid (test) number. */
export const card = SAMPLE_CARD;

/** A PIX payout request. */
export const payoutRequest = { ...samplePayout(), referenceId: "withdraw-1" };

/** A payout record as the service answers it. */
export function payoutRecord(overrides: Partial<Payout> = {}): Payout {
  return {
    id: "po_01",
    externalId: null,
    status: "PENDING",
    amount: 5_000,
    currency: "BRL",
    pixKey: "maria@example.com",
    pixKeyType: "EMAIL",
    referenceId: "withdraw-1",
    beneficiaryName: "Maria Silva",
    beneficiaryDocument: "52998224725",
    feeAmount: null,
    netAmount: null,
    failureCode: null,
    bankReceipt: null,
    createdAt: "2026-11-22T00:00:00.000Z",
    updatedAt: "2026-11-22T00:00:00.000Z",
    ...overrides,
  };
}

/** A page of payouts. */
export function payoutPage(data: Payout[], page = 1, limit = 10, total = data.length): PayoutList {
  return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
}

/** A PIX payin 201 answer. */
export const pixCreated = {
  id: "pi_01",
  externalId: "acq_01",
  referenceId: "order-1",
  status: "PENDING",
  amount: 10_000,
  paymentMethod: "PIX",
  createdAt: "2026-11-22T00:00:00.000Z",
  pix: { qrcode: "000201..." },
};
