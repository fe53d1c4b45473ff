import * as z from "zod/mini";
import { Card } from "./card.js";
import { Customer, CustomerRecord, OpenFinanceCustomer } from "./customer.js";
import { declared } from "./declared.js";
import {
  centsFrom,
  centsUpTo,
  HttpUrl,
  Ipv4,
  MAX_AMOUNT_CENTS,
  ReferenceId,
  storableJson,
  text,
} from "./fields.js";
import type { PayinStatus, PaymentMethod } from "./status.js";

/** One line of the order: what was sold, how many, and the unit price in cents. */
export const Item: z.ZodMiniObject<
  {
    title: z.ZodMiniString<string>;
    quantity: z.ZodMiniInt;
    unitPrice: z.ZodMiniInt;
    description: z.ZodMiniOptional<z.ZodMiniString<string>>;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    title: text(200),
    quantity: z.int().check(z.gte(1), z.lte(1_000_000)),
    unitPrice: centsFrom(0),
    description: z.optional(text(1000)),
  }),
);
/** One line of the order. */
export type Item = z.infer<typeof Item>;

/** Antifraud session data collected on the checkout page. */
export const Antifraud: z.ZodMiniObject<{ sessionId: z.ZodMiniString<string> }, z.core.$strict> = declared(
  z.strictObject({ sessionId: text(200) }),
);
/** Antifraud session data collected on the checkout page. */
export type Antifraud = z.infer<typeof Antifraud>;

// "Structure of a split rule: not shown": each rule is passed through untouched.
/** Rules that split the payment between recipients; opaque to this version. */
export const Split: z.ZodMiniArray<z.ZodMiniRecord<z.ZodMiniString<string>, z.ZodMiniUnknown>> = storableJson(
  z.array(z.record(z.string(), z.unknown())).check(z.maxLength(100)),
);

const payinShape = {
  referenceId: ReferenceId,
  isPhysicalProduct: z.boolean(),
  payerIp: Ipv4,
  items: z.array(Item).check(z.minLength(1), z.maxLength(500)),
  webhookUrl: z.optional(HttpUrl),
  bankId: z.optional(text(100)),
  antifraud: z.optional(Antifraud),
  subSellerId: z.optional(text(100)),
  split: z.optional(Split),
};

/** A payin paid by PIX: the response carries the copy-and-paste BR Code. */
export const PixPayinCreateParams: z.ZodMiniObject<
  {
    paymentMethod: z.ZodMiniLiteral<"PIX">;
    referenceId: typeof ReferenceId;
    isPhysicalProduct: z.ZodMiniBoolean<boolean>;
    payerIp: typeof Ipv4;
    items: z.ZodMiniArray<typeof Item>;
    webhookUrl: z.ZodMiniOptional<typeof HttpUrl>;
    bankId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    antifraud: z.ZodMiniOptional<typeof Antifraud>;
    subSellerId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    split: z.ZodMiniOptional<typeof Split>;
    amount: z.ZodMiniInt;
    customer: typeof Customer;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    paymentMethod: z.literal("PIX"),
    ...payinShape,
    amount: centsUpTo(MAX_AMOUNT_CENTS.PIX),
    customer: Customer,
  }),
);
/** A BOLETO payin: the response carries the digitable line and the PDF's URL. */
export const BoletoPayinCreateParams: z.ZodMiniObject<
  {
    paymentMethod: z.ZodMiniLiteral<"BOLETO">;
    referenceId: typeof ReferenceId;
    isPhysicalProduct: z.ZodMiniBoolean<boolean>;
    payerIp: typeof Ipv4;
    items: z.ZodMiniArray<typeof Item>;
    webhookUrl: z.ZodMiniOptional<typeof HttpUrl>;
    bankId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    antifraud: z.ZodMiniOptional<typeof Antifraud>;
    subSellerId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    split: z.ZodMiniOptional<typeof Split>;
    amount: z.ZodMiniInt;
    customer: typeof Customer;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    paymentMethod: z.literal("BOLETO"),
    ...payinShape,
    amount: centsUpTo(MAX_AMOUNT_CENTS.BOLETO),
    customer: Customer,
  }),
);
/** A CREDIT_CARD payin: needs `card`; the acquirer decides at once or opens a post-order 3DS challenge. */
export const CreditCardPayinCreateParams: z.ZodMiniObject<
  {
    paymentMethod: z.ZodMiniLiteral<"CREDIT_CARD">;
    referenceId: typeof ReferenceId;
    isPhysicalProduct: z.ZodMiniBoolean<boolean>;
    payerIp: typeof Ipv4;
    items: z.ZodMiniArray<typeof Item>;
    webhookUrl: z.ZodMiniOptional<typeof HttpUrl>;
    bankId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    antifraud: z.ZodMiniOptional<typeof Antifraud>;
    subSellerId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    split: z.ZodMiniOptional<typeof Split>;
    amount: z.ZodMiniInt;
    customer: typeof Customer;
    card: typeof Card;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    paymentMethod: z.literal("CREDIT_CARD"),
    ...payinShape,
    amount: centsUpTo(MAX_AMOUNT_CENTS.CREDIT_CARD),
    customer: Customer,
    card: Card,
  }),
);
/** An OPEN_FINANCE payin: the customer authorizes it at the bank; the address may be left out. */
export const OpenFinancePayinCreateParams: z.ZodMiniObject<
  {
    paymentMethod: z.ZodMiniLiteral<"OPEN_FINANCE">;
    referenceId: typeof ReferenceId;
    isPhysicalProduct: z.ZodMiniBoolean<boolean>;
    payerIp: typeof Ipv4;
    items: z.ZodMiniArray<typeof Item>;
    webhookUrl: z.ZodMiniOptional<typeof HttpUrl>;
    bankId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    antifraud: z.ZodMiniOptional<typeof Antifraud>;
    subSellerId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    split: z.ZodMiniOptional<typeof Split>;
    amount: z.ZodMiniInt;
    customer: typeof OpenFinanceCustomer;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    paymentMethod: z.literal("OPEN_FINANCE"),
    ...payinShape,
    amount: centsUpTo(MAX_AMOUNT_CENTS.OPEN_FINANCE),
    customer: OpenFinanceCustomer,
  }),
);

/** The body of POST /payin: one shape per `paymentMethod`. */
export const PayinCreateParams: z.ZodMiniDiscriminatedUnion<
  [
    typeof PixPayinCreateParams,
    typeof BoletoPayinCreateParams,
    typeof CreditCardPayinCreateParams,
    typeof OpenFinancePayinCreateParams,
  ],
  "paymentMethod"
> = declared(
  z.discriminatedUnion("paymentMethod", [
    PixPayinCreateParams,
    BoletoPayinCreateParams,
    CreditCardPayinCreateParams,
    OpenFinancePayinCreateParams,
  ]),
);
/** The body of POST /payin for a PIX payin. */
export type PixPayinCreateParams = z.input<typeof PixPayinCreateParams>;
/** The body of POST /payin for a BOLETO payin. */
export type BoletoPayinCreateParams = z.input<typeof BoletoPayinCreateParams>;
/** The body of POST /payin for a CREDIT_CARD payin. */
export type CreditCardPayinCreateParams = z.input<typeof CreditCardPayinCreateParams>;
/** The body of POST /payin for an OPEN_FINANCE payin. */
export type OpenFinancePayinCreateParams = z.input<typeof OpenFinancePayinCreateParams>;
/** The body of POST /payin, discriminated by `paymentMethod`. */
export type PayinCreateParams = z.input<typeof PayinCreateParams>;

const StatusString = z.string() as unknown as z.ZodMiniType<PayinStatus>;

const createdShape = {
  id: z.string(),
  externalId: z.string(),
  referenceId: z.string(),
  status: StatusString,
  amount: z.int(),
  createdAt: z.string(),
};

/** The 201 answer to a PIX payin: `pix.qrcode` is the BR Code to show as QR code or text. */
export const PixPayinCreated: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniString<string>;
    referenceId: z.ZodMiniString<string>;
    status: z.ZodMiniType<PayinStatus>;
    amount: z.ZodMiniInt;
    createdAt: z.ZodMiniString<string>;
    paymentMethod: z.ZodMiniLiteral<"PIX">;
    pix: z.ZodMiniObject<{ qrcode: z.ZodMiniString<string> }, z.core.$loose>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    ...createdShape,
    paymentMethod: z.literal("PIX"),
    pix: z.looseObject({ qrcode: z.string() }),
  }),
);
/** The 201 answer to a BOLETO payin: the digitable line and the URL of the PDF. */
export const BoletoPayinCreated: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniString<string>;
    referenceId: z.ZodMiniString<string>;
    status: z.ZodMiniType<PayinStatus>;
    amount: z.ZodMiniInt;
    createdAt: z.ZodMiniString<string>;
    paymentMethod: z.ZodMiniLiteral<"BOLETO">;
    boleto: z.ZodMiniObject<
      { barcode: z.ZodMiniString<string>; url: z.ZodMiniString<string> },
      z.core.$loose
    >;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    ...createdShape,
    paymentMethod: z.literal("BOLETO"),
    boleto: z.looseObject({ barcode: z.string(), url: z.string() }),
  }),
);
/** The 201 answer to an OPEN_FINANCE payin: where to send the customer to authorize at the bank. */
export const OpenFinancePayinCreated: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniString<string>;
    referenceId: z.ZodMiniString<string>;
    status: z.ZodMiniType<PayinStatus>;
    amount: z.ZodMiniInt;
    createdAt: z.ZodMiniString<string>;
    paymentMethod: z.ZodMiniLiteral<"OPEN_FINANCE">;
    openFinanceRedirectUrl: z.ZodMiniString<string>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    ...createdShape,
    paymentMethod: z.literal("OPEN_FINANCE"),
    openFinanceRedirectUrl: z.string(),
  }),
);
/**
 * The 201 answer to a CREDIT_CARD payin: APPROVED or REFUSED at once, or PENDING_3DS with the
 * fields that `handlePendingThreeDS` of `@paykit/browser` needs.
 */
export const CreditCardPayinCreated: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniString<string>;
    referenceId: z.ZodMiniString<string>;
    status: z.ZodMiniType<PayinStatus>;
    amount: z.ZodMiniInt;
    createdAt: z.ZodMiniString<string>;
    paymentMethod: z.ZodMiniLiteral<"CREDIT_CARD">;
    threeDSecurePending: z.ZodMiniOptional<z.ZodMiniBoolean<boolean>>;
    threeDSecureSession: z.ZodMiniOptional<z.ZodMiniString<string>>;
    threeDSecureTransactionId: z.ZodMiniOptional<z.ZodMiniString<string>>;
    threeDSecureSdkUrl: z.ZodMiniOptional<z.ZodMiniString<string>>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    ...createdShape,
    paymentMethod: z.literal("CREDIT_CARD"),
    threeDSecurePending: z.optional(z.boolean()),
    threeDSecureSession: z.optional(z.string()),
    threeDSecureTransactionId: z.optional(z.string()),
    threeDSecureSdkUrl: z.optional(z.string()),
  }),
);
/** The 201 answer to POST /payin, one shape per `paymentMethod`. */
export const PayinCreated: z.ZodMiniDiscriminatedUnion<
  [
    typeof PixPayinCreated,
    typeof BoletoPayinCreated,
    typeof CreditCardPayinCreated,
    typeof OpenFinancePayinCreated,
  ],
  "paymentMethod"
> = declared(
  z.discriminatedUnion("paymentMethod", [
    PixPayinCreated,
    BoletoPayinCreated,
    CreditCardPayinCreated,
    OpenFinancePayinCreated,
  ]),
);
/** The 201 answer to a PIX payin. */
export type PixPayinCreated = z.infer<typeof PixPayinCreated>;
/** The 201 answer to a BOLETO payin. */
export type BoletoPayinCreated = z.infer<typeof BoletoPayinCreated>;
/** The 201 answer to an OPEN_FINANCE payin. */
export type OpenFinancePayinCreated = z.infer<typeof OpenFinancePayinCreated>;
/** The 201 answer to a CREDIT_CARD payin. */
export type CreditCardPayinCreated = z.infer<typeof CreditCardPayinCreated>;
/** The 201 answer to POST /payin. */
export type PayinCreated = z.infer<typeof PayinCreated>;

/** A card payin waiting for the customer's post-order 3DS challenge. */
export type PendingThreeDSPayin = CreditCardPayinCreated & {
  status: "PENDING_3DS";
  threeDSecurePending: true;
  threeDSecureSession: string;
  threeDSecureTransactionId: string;
  threeDSecureSdkUrl: string;
};

/** The 201 answer type that goes with a request's `paymentMethod`. */
export type PayinCreatedFor<M extends PaymentMethod> = Extract<PayinCreated, { paymentMethod: M }>;

/** The response schema that goes with a `paymentMethod`, for parsing a 201 answer. */
export const PAYIN_CREATED_BY_METHOD = {
  PIX: PixPayinCreated,
  BOLETO: BoletoPayinCreated,
  CREDIT_CARD: CreditCardPayinCreated,
  OPEN_FINANCE: OpenFinancePayinCreated,
} as const;

/** Whether a payin answer is a card payin waiting for its post-order 3DS challenge. */
export function isPendingThreeDS(payin: {
  status?: unknown;
  paymentMethod?: unknown;
}): payin is PendingThreeDSPayin {
  const p = payin as Partial<PendingThreeDSPayin>;
  return (
    p.paymentMethod === "CREDIT_CARD" &&
    p.status === "PENDING_3DS" &&
    p.threeDSecurePending === true &&
    typeof p.threeDSecureSession === "string" &&
    typeof p.threeDSecureTransactionId === "string" &&
    typeof p.threeDSecureSdkUrl === "string"
  );
}

/** An item as the service returns it. */
export const ItemRecord: z.ZodMiniObject<
  {
    title: z.ZodMiniString<string>;
    quantity: z.ZodMiniInt;
    unitPrice: z.ZodMiniInt;
    description: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    title: z.string(),
    quantity: z.int(),
    unitPrice: z.int(),
    description: z.optional(z.nullable(z.string())),
  }),
);

/** A payin as GET /payin/{id} returns it; unknown fields and statuses are kept. */
export const Payin: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniNullable<z.ZodMiniString<string>>;
    referenceId: z.ZodMiniNullable<z.ZodMiniString<string>>;
    status: z.ZodMiniType<PayinStatus>;
    amount: z.ZodMiniInt;
    currency: z.ZodMiniString<string>;
    paymentMethod: z.ZodMiniType<PaymentMethod | (string & {})>;
    installments: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniInt>>;
    customer: typeof CustomerRecord;
    items: z.ZodMiniArray<typeof ItemRecord>;
    pixCopyAndPaste: z.ZodMiniNullable<z.ZodMiniString<string>>;
    boletoBarcode: z.ZodMiniNullable<z.ZodMiniString<string>>;
    boletoUrl: z.ZodMiniNullable<z.ZodMiniString<string>>;
    netAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    reservedAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    createdAt: z.ZodMiniString<string>;
    updatedAt: z.ZodMiniString<string>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    id: z.string(),
    externalId: z.nullable(z.string()),
    referenceId: z.nullable(z.string()),
    status: StatusString,
    amount: z.int(),
    currency: z.string(),
    paymentMethod: z.string() as unknown as z.ZodMiniType<PaymentMethod | (string & {})>,
    installments: z.optional(z.nullable(z.int())),
    customer: CustomerRecord,
    items: z.array(ItemRecord),
    pixCopyAndPaste: z.nullable(z.string()),
    boletoBarcode: z.nullable(z.string()),
    boletoUrl: z.nullable(z.string()),
    netAmount: z.nullable(z.int()),
    reservedAmount: z.nullable(z.int()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
/** A payin as GET /payin/{id} returns it. */
export type Payin = z.infer<typeof Payin>;
