import type { PaymentStatus } from "./store.js";

/**
 * The payin fields a merchant may add to what the shopper's page receives (`fields` of
 * `createPaymentStatus`). Both the payin record and the webhook body carry them; nothing about the
 * customer is offered.
 */
export type PublicPayinField = "amount" | "referenceId";

const PUBLIC_FIELDS: ReadonlySet<string> = new Set<PublicPayinField>(["amount", "referenceId"]);

/** A payment status with the fields the merchant opted into. */
export type PublicPaymentStatus = PaymentStatus & { amount?: number; referenceId?: string | null };

/** What both a payin record and a payin webhook body have. */
interface PayinLike {
  id: string;
  status: string;
  paymentMethod: string;
  updatedAt: string;
  amount?: number;
  referenceId?: string | null;
}

/** The `fields` option without repeats, or null when it names anything but {@link PublicPayinField}s. */
export function checkFields(fields: unknown): readonly PublicPayinField[] | null {
  if (fields === undefined) return [];
  if (!Array.isArray(fields) || fields.some((field) => !PUBLIC_FIELDS.has(field as string))) return null;
  return [...new Set(fields as PublicPayinField[])];
}

/**
 * The public status of a payin record, a webhook body or a stored status: `{ id, status,
 * paymentMethod, updatedAt }` and the opted-in fields, built key by key so nothing else can slip
 * through (a store may hand back whatever another instance wrote).
 */
export function publicStatus(payin: PayinLike, fields: readonly PublicPayinField[]): PublicPaymentStatus {
  const status: PublicPaymentStatus = {
    id: payin.id,
    status: payin.status,
    paymentMethod: payin.paymentMethod,
    updatedAt: payin.updatedAt,
  };
  for (const field of fields) {
    const value = payin[field];
    if (value !== undefined) (status as unknown as Record<string, unknown>)[field] = value;
  }
  return status;
}
