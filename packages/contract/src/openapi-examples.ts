// The examples of the OpenAPI document: one request and one answer of each operation and webhook, and
// an error message per code. Each is checked against its schema by the contract's document test.
import type { KnownErrorCode } from "./error.js";

/** An example message per error code (the document's error answers). */
export const ERROR_MESSAGES: Record<KnownErrorCode, string> = {
  INVALID_DATA: "customer.document: must be a valid CPF (11 digits, digits only)",
  REJECTED_BY_RISK: "Denied by antifraud",
  PAYER_LIMIT_REJECTED: "Insufficient card limit",
  INVALID_CVV: "Wrong CVV",
  PROVIDER_ERROR: "Temporary acquirer failure",
  INSUFFICIENT_FUNDS: "Available balance is too low",
  INVALID_PIX_KEY: "PIX key invalid or not found in the directory",
  BEYOND_LIMITS: "Amount exceeds the limit allowed at this time of day",
  TEMPORARY_UNAVAILABLE: "Acquirer temporarily unavailable; retry in 5 to 10 minutes",
  PROVIDER_REJECTED: "Transfer rejected by the banking system",
  UNAUTHORIZED: "Invalid or missing credentials",
  KYC_NOT_APPROVED: "Account KYC not approved",
  CREDIT_CARD_NOT_ENABLED: "Card processing is not enabled for this account",
  NOT_FOUND: "Not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  PAYLOAD_TOO_LARGE: "Body over 1 MiB",
  UNSUPPORTED_MEDIA_TYPE: "Content-Type must be application/json",
  RATE_LIMITED: "Too many requests",
  INTERNAL_ERROR: "Internal error",
};

const NOW = "2026-01-31T12:00:00.000Z";
const LATER = "2026-01-31T12:00:05.000Z";
const CUSTOMER = {
  name: "Maria Silva",
  document: "52998224725",
  email: "maria.santos@example.com",
  phone: "5511987654321",
  address: {
    street: "Avenida Paulista",
    number: "1000",
    zipCode: "01310100",
    city: "São Paulo",
    state: "SP",
  },
};
export const PIX_REQUEST = {
  paymentMethod: "PIX",
  amount: 1990,
  referenceId: "order-1001",
  isPhysicalProduct: false,
  payerIp: "203.0.113.7",
  items: [{ title: "Monthly plan", quantity: 1, unitPrice: 1990 }],
  webhookUrl: "https://merchant.example.com/webhooks/paykit",
  customer: CUSTOMER,
};
export const PIX_CREATED = {
  id: "pi_3f2a9c1b7d4e",
  externalId: "acq_8812734",
  referenceId: "order-1001",
  status: "PENDING",
  amount: 1990,
  paymentMethod: "PIX",
  createdAt: NOW,
  pix: {
    qrcode:
      "00020126330014br.gov.bcb.pix0111529982247255204000053039865406019.905802BR5911Maria Silva6009SAO PAULO62160512pi3f2a9c1b7d4e6304ABCD",
  },
};
export const PAYIN = {
  id: "pi_3f2a9c1b7d4e",
  externalId: "acq_8812734",
  referenceId: "order-1001",
  status: "APPROVED",
  amount: 1990,
  currency: "BRL",
  paymentMethod: "PIX",
  installments: null,
  customer: CUSTOMER,
  items: [{ title: "Monthly plan", quantity: 1, unitPrice: 1990 }],
  pixCopyAndPaste: PIX_CREATED.pix.qrcode,
  boletoBarcode: null,
  boletoUrl: null,
  netAmount: 1930,
  reservedAmount: 0,
  createdAt: NOW,
  updatedAt: LATER,
};
export const PAYOUT_REQUEST = {
  amount: 15000,
  pixKey: "maria.santos@example.com",
  pixKeyType: "EMAIL",
  referenceId: "withdrawal-77",
  beneficiaryName: "Maria Silva",
  beneficiaryDocument: "52998224725",
  webhookUrl: "https://merchant.example.com/webhooks/paykit",
};
export const PAYOUT = {
  id: "po_9b1c2d3e4f5a",
  externalId: null,
  status: "PENDING",
  amount: 15000,
  currency: "BRL",
  pixKey: "maria.santos@example.com",
  pixKeyType: "EMAIL",
  referenceId: "withdrawal-77",
  beneficiaryName: "Maria Silva",
  beneficiaryDocument: "52998224725",
  feeAmount: null,
  netAmount: null,
  failureCode: null,
  createdAt: NOW,
  updatedAt: NOW,
};
const PAYIN_WEBHOOK = {
  id: "pi_3f2a9c1b7d4e",
  status: "APPROVED",
  paymentMethod: "PIX",
  amount: 1990,
  referenceId: "order-1001",
  customer: { name: "Maria Silva", email: "maria.santos@example.com" },
  updatedAt: LATER,
};

/** The example of each request and 2xx response, by component name (checked against the schemas in a test). */
export const OPENAPI_EXAMPLES: Record<string, unknown> = {
  PayinCreateParams: PIX_REQUEST,
  PayinCreated: PIX_CREATED,
  Payin: PAYIN,
  PayoutCreateParams: PAYOUT_REQUEST,
  Payout: PAYOUT,
  PayoutList: { data: [PAYOUT], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } },
  PayinWebhookBody: PAYIN_WEBHOOK,
  PayoutWebhookBody: {
    ...PAYOUT,
    status: "COMPLETED",
    externalId: "E1234567820260131120000000001",
    feeAmount: 50,
    netAmount: 14950,
  },
};
