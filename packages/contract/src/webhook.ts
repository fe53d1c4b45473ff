import * as z from "zod/mini";
import { declared } from "./declared.js";
import type { PayinStatus, PaymentMethod } from "./status.js";

/** The body of a payin webhook: exactly the spec's fields. */
export const PayinWebhookBody: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    status: z.ZodMiniType<PayinStatus>;
    paymentMethod: z.ZodMiniType<PaymentMethod | (string & {})>;
    amount: z.ZodMiniInt;
    referenceId: z.ZodMiniNullable<z.ZodMiniString<string>>;
    customer: z.ZodMiniObject<
      { name: z.ZodMiniString<string>; email: z.ZodMiniString<string> },
      z.core.$loose
    >;
    updatedAt: z.ZodMiniString<string>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    id: z.string(),
    status: z.string() as unknown as z.ZodMiniType<PayinStatus>,
    paymentMethod: z.string() as unknown as z.ZodMiniType<PaymentMethod | (string & {})>,
    amount: z.int(),
    referenceId: z.nullable(z.string()),
    customer: z.looseObject({ name: z.string(), email: z.string() }),
    updatedAt: z.string(),
  }),
);
/** The body of a payin webhook. */
export type PayinWebhookBody = z.infer<typeof PayinWebhookBody>;

/** The body of a payout webhook: the payout record without `bankReceipt`, with `failureCode`. */
export const PayoutWebhookBody: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniNullable<z.ZodMiniString<string>>;
    status: z.ZodMiniString<string>;
    amount: z.ZodMiniInt;
    currency: z.ZodMiniString<string>;
    pixKey: z.ZodMiniString<string>;
    pixKeyType: z.ZodMiniString<string>;
    referenceId: z.ZodMiniString<string>;
    beneficiaryName: z.ZodMiniString<string>;
    beneficiaryDocument: z.ZodMiniString<string>;
    feeAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    netAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    failureCode: z.ZodMiniNullable<z.ZodMiniString<string>>;
    createdAt: z.ZodMiniString<string>;
    updatedAt: z.ZodMiniString<string>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    id: z.string(),
    externalId: z.nullable(z.string()),
    status: z.string(),
    amount: z.int(),
    currency: z.string(),
    pixKey: z.string(),
    pixKeyType: z.string(),
    referenceId: z.string(),
    beneficiaryName: z.string(),
    beneficiaryDocument: z.string(),
    feeAmount: z.nullable(z.int()),
    netAmount: z.nullable(z.int()),
    failureCode: z.nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
/** The body of a payout webhook. */
export type PayoutWebhookBody = z.infer<typeof PayoutWebhookBody>;

export {
  WEBHOOK_HEADERS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_TIMEOUT_MS,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookKindOf,
} from "./webhook-constants.js";
