import type {
  CustomerRecord,
  KnownPayinStatus,
  KnownPayoutStatus,
  Payin,
  PayinCreated,
  PayinWebhookBody,
  PaymentMethod,
  Payout,
  PayoutWebhookBody,
  PixKeyType,
} from "@paykit/contract";
import type { PixCharge } from "./pix-charge.js";
import type { TraceContext } from "./trace-context.js";

/**
 * What the mock keeps of a card: brand and last four digits, never the number (docs/decisions/card.md).
 */
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
export interface StoredChange<S> {
  status: S;
  at: number;
}

/** The open post-order 3DS challenge of a card payin (docs/decisions/three-ds.md). */
export interface ThreeDSChallenge {
  transactionId: string;
  session: string;
  /** The outcome of the first completed challenge; a second completion changes nothing. */
  outcome: "AUTHENTICATED" | "REJECTED" | null;
}

/**
 * The JSON text a payin keeps of its order, as one flat string. V8 answers a longer `JSON.stringify`
 * as a rope of pieces (4 to 6 heap objects for a customer); reading the text as a number, which
 * always fails on JSON of an object, makes V8 flatten it in place, and the next garbage collection
 * keeps the flat text alone: ~150 bytes and 5 objects less per payin to promote.
 */
export function storedJson(value: StoredOrder): string {
  const text = JSON.stringify(value);
  if (!Number.isNaN(Number(text))) throw new TypeError("a stored order must be an object");
  return text;
}

/** What a payin keeps of its order: the customer and the items, as sent (see {@link orderOf}). */
export interface StoredOrder {
  customer: CustomerRecord;
  items: Payin["items"];
}

/** The known fields of a wire type, without the index signature its loose schema adds. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * A payin as the mock stores it: the contract's payin record (docs/decisions/public-api-names.md) less what
 * is derived when it is shown (customer and items from `orderJson`, the BR Code from `pixCharge`, the
 * ISO times), plus what the mock keeps for itself. Customer and items are kept together as one JSON
 * text: one flat string per payin instead of a tree of small objects keeps a million payins well under
 * 2 GB of heap (bench/profile-payin.mjs).
 */
export interface PayinRecord
  extends Omit<
    Known<Payin>,
    | "status"
    | "paymentMethod"
    | "currency"
    | "customer"
    | "items"
    | "pixCopyAndPaste"
    | "createdAt"
    | "updatedAt"
    | "installments"
    | "externalId"
    | "referenceId"
  > {
  status: KnownPayinStatus;
  referenceId: string;
  paymentMethod: PaymentMethod;
  externalId: string;
  installments: number | null;
  accountId: string;
  /** `{"customer":…,"items":[…]}`, from {@link storedJson}. */
  orderJson: string;
  webhookUrl: string | null;
  /** Mock-clock epoch ms. */
  createdAt: number;
  /** Every status after creation's; null until the first transition (see {@link statusHistoryOf}). */
  transitions: StoredChange<KnownPayinStatus>[] | null;
  /** When the card reserve is released on the account clock; null when none is held (or once released). */
  reserveReleaseAt: number | null;
  threeDS: ThreeDSChallenge | null;
  card: StoredCard | null;
  /** The receiving account's PIX charges of a PIX payin; its BR Code is rebuilt from it. */
  pixCharge: PixCharge | null;
  openFinanceRedirectUrl: string | null;
  /** The bank page's token of an open finance payin, which its decision form posts back. */
  pageToken: string | null;
  /** The trace of the request that created it: its webhooks carry it. */
  trace: TraceContext | null;
}

/**
 * A payout as the mock stores it: the contract's payout record less the ISO times and the currency,
 * plus its account, webhook URL and status history. A field added to the contract's payout is a field
 * here, kept by every store as it is (the SQL stores' `record` column) and shown on the wire as it is.
 */
export interface PayoutRecord
  extends Omit<
    Known<Payout>,
    "status" | "currency" | "createdAt" | "updatedAt" | "bankReceipt" | "failureCode" | "pixKeyType"
  > {
  status: KnownPayoutStatus;
  pixKeyType: PixKeyType;
  failureCode: string | null;
  accountId: string;
  webhookUrl: string | null;
  /** Mock-clock epoch ms. */
  createdAt: number;
  /** Every status after creation's; null until the first transition (see {@link statusHistoryOf}). */
  transitions: StoredChange<KnownPayoutStatus>[] | null;
  /** The trace of the request that created it: its webhooks carry it. */
  trace: TraceContext | null;
}

/** Mock time of a record's last status change: creation's until the first transition (no field kept). */
export function updatedAtOf(record: {
  createdAt: number;
  transitions: StoredChange<string>[] | null;
}): number {
  const transitions = record.transitions;
  return transitions === null ? record.createdAt : transitions[transitions.length - 1]!.at;
}

/** A payin's customer and items, read back from its stored JSON text. */
export function orderOf(p: PayinRecord): StoredOrder {
  return JSON.parse(p.orderJson) as StoredOrder;
}

// Records created in one millisecond share their ISO time: the last one is kept, not rebuilt.
let isoMs = Number.NaN;
let isoText = "";

/** An epoch-ms mock time as the ISO 8601 text of the wire (`2026-01-31T12:00:00.000Z`). */
function iso(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

/**
 * Moves a payin or payout to `to` at mock time `at`, keeping its status history. The creation entry
 * is written only now: until a record first moves, its current status is its creation status.
 */
export function recordStatus<S extends string>(
  record: { status: S; createdAt: number; transitions: StoredChange<S>[] | null },
  to: S,
  at: number,
): void {
  record.transitions ??= [{ status: record.status, at: record.createdAt }];
  record.transitions.push({ status: to, at });
  record.status = to;
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
  const order = orderOf(p);
  return {
    id: p.id,
    externalId: p.externalId,
    referenceId: p.referenceId,
    status: p.status,
    amount: p.amount,
    currency: "BRL",
    paymentMethod: p.paymentMethod,
    installments: p.installments,
    customer: order.customer,
    items: order.items,
    pixCopyAndPaste: pixCopyAndPasteOf(p),
    boletoBarcode: p.boletoBarcode,
    boletoUrl: p.boletoUrl,
    netAmount: p.netAmount,
    reservedAmount: p.reservedAmount,
    createdAt: iso(p.createdAt),
    updatedAt: iso(updatedAtOf(p)),
  };
}

/** The BR Code of a PIX payin (rebuilt from its account's key, amount and id); null for other methods. */
export function pixCopyAndPasteOf(p: PayinRecord): string | null {
  return p.pixCharge === null ? null : p.pixCharge.code(p.amount, p.id);
}

/**
 * The 201 answer of POST /payin, shaped by the contract's `PayinCreated`: the common fields plus the
 * method's payment data (spec). `pixCode` is the BR Code built at creation, passed on so it is not
 * built twice. The payment data is set at creation for every payin of its method (createPayin).
 */
export function payinCreatedJson(
  p: PayinRecord,
  sdkUrl: string,
  pixCode: string | null = pixCopyAndPasteOf(p),
): PayinCreated {
  switch (p.paymentMethod) {
    case "PIX":
      return { ...createdFields(p, "PIX"), pix: { qrcode: pixCode! } };
    case "BOLETO":
      return { ...createdFields(p, "BOLETO"), boleto: { barcode: p.boletoBarcode!, url: p.boletoUrl! } };
    case "OPEN_FINANCE":
      return { ...createdFields(p, "OPEN_FINANCE"), openFinanceRedirectUrl: p.openFinanceRedirectUrl! };
    case "CREDIT_CARD": {
      const challenge = p.status === "PENDING_3DS" ? p.threeDS : null;
      if (challenge === null) return createdFields(p, "CREDIT_CARD");
      return {
        ...createdFields(p, "CREDIT_CARD"),
        threeDSecurePending: true,
        threeDSecureSession: challenge.session,
        threeDSecureTransactionId: challenge.transactionId,
        threeDSecureSdkUrl: sdkUrl,
      };
    }
  }
}

/** The fields every 201 answer of POST /payin starts with, in the wire's order, for one method. */
function createdFields<M extends PaymentMethod>(p: PayinRecord, paymentMethod: M) {
  const { id, externalId, referenceId, status, amount } = p;
  return { id, externalId, referenceId, status, amount, paymentMethod, createdAt: iso(p.createdAt) };
}

/** The payin webhook body: exactly the spec's fields. */
export function payinWebhookJson(p: PayinRecord): PayinWebhookBody {
  const { customer } = orderOf(p);
  return {
    id: p.id,
    status: p.status,
    paymentMethod: p.paymentMethod,
    amount: p.amount,
    referenceId: p.referenceId,
    customer: { name: customer.name, email: customer.email },
    updatedAt: iso(updatedAtOf(p)),
  };
}

/** The payout record of lists, control answers and webhooks: no `bankReceipt`, with `failureCode`. */
export function payoutJson(p: PayoutRecord): PayoutWebhookBody & Payout {
  const {
    accountId: _account,
    webhookUrl: _url,
    transitions: _history,
    trace: _trace,
    createdAt,
    ...fields
  } = p;
  return { ...fields, currency: "BRL", createdAt: iso(createdAt), updatedAt: iso(updatedAtOf(p)) };
}

/** The 201 answer of POST /payout: the record with `bankReceipt: null` (spec: present at creation only). */
export function payoutCreatedJson(p: PayoutRecord): Payout {
  return { ...payoutJson(p), bankReceipt: null };
}
