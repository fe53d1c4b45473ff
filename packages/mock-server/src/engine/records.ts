import type {
  CustomerRecord,
  KnownPayinStatus,
  KnownPayoutStatus,
  Payin,
  PayinWebhookBody,
  PaymentMethod,
  Payout,
  PayoutWebhookBody,
  PixKeyType,
} from "@paykit/contract";
import type { PixCharge } from "./pix-charge.js";

/** What the mock keeps of a card: brand and last four digits, never the number (DESIGN.md section 2, Card). */
export interface StoredCard {
  brand: string;
  last4: string;
}

/** One step of a payin's or payout's status history, as the dashboard shows it. */
export interface StatusChange<S extends string = string> {
  status: S;
  /** ISO 8601 time of the change on the mock clock. */
  at: string;
}

/**
 * A status change as stored: the mock-clock time in epoch ms. A record keeps none until its first
 * transition (its history is then its creation alone), so a million untouched payins cost one null
 * field each, not an array.
 */
interface StoredChange<S> {
  status: S;
  at: number;
}

/** The open post-order 3DS challenge of a card payin (DESIGN.md section 4). */
export interface ThreeDSChallenge {
  transactionId: string;
  session: string;
  /** The outcome of the first completed challenge; a second completion changes nothing. */
  outcome: "AUTHENTICATED" | "REJECTED" | null;
}

/**
 * A payin as the mock stores it. Customer and items are kept as their JSON text: one flat string per
 * payin instead of a tree of small objects keeps a million payins well under 2 GB of heap.
 */
export class PayinRecord {
  status: KnownPayinStatus;
  netAmount: number | null = null;
  reservedAmount: number | null = null;
  updatedAt: number;
  threeDS: ThreeDSChallenge | null = null;
  card: StoredCard | null = null;
  /** The receiving account's PIX charges of a PIX payin (shared); its BR Code is rebuilt from it. */
  pixCharge: PixCharge | null = null;
  boletoBarcode: string | null = null;
  boletoUrl: string | null = null;
  openFinanceRedirectUrl: string | null = null;
  installments: number | null = null;
  /** Every status after creation's; null until the first transition (see {@link statusHistoryOf}). */
  transitions: StoredChange<KnownPayinStatus>[] | null = null;

  constructor(
    readonly id: string,
    readonly accountId: string,
    readonly externalId: string,
    readonly referenceId: string,
    readonly paymentMethod: PaymentMethod,
    readonly amount: number,
    readonly customerJson: string,
    readonly itemsJson: string,
    readonly webhookUrl: string | null,
    readonly createdAt: number,
    status: KnownPayinStatus,
  ) {
    this.status = status;
    this.updatedAt = createdAt;
  }
}

/** A payout as the mock stores it. */
export class PayoutRecord {
  status: KnownPayoutStatus;
  externalId: string | null = null;
  feeAmount: number | null = null;
  netAmount: number | null = null;
  failureCode: string | null = null;
  updatedAt: number;
  /** Every status after creation's; null until the first transition (see {@link statusHistoryOf}). */
  transitions: StoredChange<KnownPayoutStatus>[] | null = null;

  constructor(
    readonly id: string,
    readonly accountId: string,
    readonly amount: number,
    readonly pixKey: string,
    readonly pixKeyType: PixKeyType,
    readonly referenceId: string,
    readonly beneficiaryName: string | null,
    readonly beneficiaryDocument: string | null,
    readonly webhookUrl: string | null,
    readonly createdAt: number,
    status: KnownPayoutStatus,
  ) {
    this.status = status;
    this.updatedAt = createdAt;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Moves a payin or payout to `to` at mock time `at`, keeping its status history. The creation entry
 * is written only now: until a record first moves, its current status is its creation status.
 */
export function recordStatus<S extends string>(
  record: { status: S; createdAt: number; updatedAt: number; transitions: StoredChange<S>[] | null },
  to: S,
  at: number,
): void {
  record.transitions ??= [{ status: record.status, at: record.createdAt }];
  record.transitions.push({ status: to, at });
  record.status = to;
  record.updatedAt = at;
}

/** A record's status history, oldest first: its creation status, then every transition. */
export function statusHistoryOf<S extends string>(record: {
  status: S;
  createdAt: number;
  transitions: StoredChange<S>[] | null;
}): StatusChange<S>[] {
  const stored = record.transitions ?? [{ status: record.status, at: record.createdAt }];
  return stored.map((change) => ({ status: change.status, at: iso(change.at) }));
}

/** The payin record of GET /payin/{id} (spec: Payin record). */
export function payinJson(p: PayinRecord): Payin {
  return {
    id: p.id,
    externalId: p.externalId,
    referenceId: p.referenceId,
    status: p.status,
    amount: p.amount,
    currency: "BRL",
    paymentMethod: p.paymentMethod,
    installments: p.installments,
    customer: JSON.parse(p.customerJson) as CustomerRecord,
    items: JSON.parse(p.itemsJson) as Payin["items"],
    pixCopyAndPaste: pixCopyAndPasteOf(p),
    boletoBarcode: p.boletoBarcode,
    boletoUrl: p.boletoUrl,
    netAmount: p.netAmount,
    reservedAmount: p.reservedAmount,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

/** The BR Code of a PIX payin (rebuilt from its account's key, amount and id); null for other methods. */
export function pixCopyAndPasteOf(p: PayinRecord): string | null {
  return p.pixCharge === null ? null : p.pixCharge.code(p.amount, p.id);
}

/**
 * The 201 answer of POST /payin: the common fields plus the method's payment data (spec).
 * `pixCode` is the BR Code built at creation, passed on so it is not built twice.
 */
export function payinCreatedJson(
  p: PayinRecord,
  sdkUrl: string,
  pixCode: string | null = pixCopyAndPasteOf(p),
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    externalId: p.externalId,
    referenceId: p.referenceId,
    status: p.status,
    amount: p.amount,
    paymentMethod: p.paymentMethod,
    createdAt: iso(p.createdAt),
  };
  switch (p.paymentMethod) {
    case "PIX":
      out.pix = { qrcode: pixCode };
      break;
    case "BOLETO":
      out.boleto = { barcode: p.boletoBarcode, url: p.boletoUrl };
      break;
    case "OPEN_FINANCE":
      out.openFinanceRedirectUrl = p.openFinanceRedirectUrl;
      break;
    case "CREDIT_CARD":
      if (p.status === "PENDING_3DS" && p.threeDS) {
        out.threeDSecurePending = true;
        out.threeDSecureSession = p.threeDS.session;
        out.threeDSecureTransactionId = p.threeDS.transactionId;
        out.threeDSecureSdkUrl = sdkUrl;
      }
      break;
  }
  return out;
}

/** The payin webhook body: exactly the spec's fields. */
export function payinWebhookJson(p: PayinRecord): PayinWebhookBody {
  const customer = JSON.parse(p.customerJson) as { name: string; email: string };
  return {
    id: p.id,
    status: p.status,
    paymentMethod: p.paymentMethod,
    amount: p.amount,
    referenceId: p.referenceId,
    customer: { name: customer.name, email: customer.email },
    updatedAt: iso(p.updatedAt),
  };
}

/** The payout record of lists, control answers and webhooks: no `bankReceipt`, with `failureCode`. */
export function payoutJson(p: PayoutRecord): PayoutWebhookBody & Payout {
  return {
    id: p.id,
    externalId: p.externalId,
    status: p.status,
    amount: p.amount,
    currency: "BRL",
    pixKey: p.pixKey,
    pixKeyType: p.pixKeyType,
    referenceId: p.referenceId,
    beneficiaryName: p.beneficiaryName,
    beneficiaryDocument: p.beneficiaryDocument,
    feeAmount: p.feeAmount,
    netAmount: p.netAmount,
    failureCode: p.failureCode,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

/** The 201 answer of POST /payout: the record with `bankReceipt: null` (spec: present at creation only). */
export function payoutCreatedJson(p: PayoutRecord): Payout {
  return { ...payoutJson(p), bankReceipt: null };
}
