import * as z from "zod/mini";
import { declared } from "./declared.js";
import {
  centsUpTo,
  HttpUrl,
  IsoDateTime,
  MAX_AMOUNT_CENTS,
  ReferenceId,
  storableString,
  text,
} from "./fields.js";
import { PAYOUT_STATUSES, type PayoutStatus } from "./status.js";
import {
  isValidCnpj,
  isValidCpf,
  isValidPixKey,
  PIX_KEY_TYPES,
  type PixKeyType,
} from "./validators/index.js";

/** The type of a PIX key: CPF, CNPJ, EMAIL, PHONE or EVP (a random key, a UUID). */
export const PixKeyTypeSchema: z.ZodMiniEnum<{ [Type in PixKeyType]: Type }> = declared(
  z.enum(PIX_KEY_TYPES),
);

const KEY_RULES: Record<PixKeyType, string> = {
  CPF: "a CPF of 11 digits with valid check digits",
  CNPJ: "a CNPJ of 14 characters with valid check digits",
  EMAIL: "an e-mail address of at most 77 characters",
  PHONE: "+55 followed by 10 or 11 digits",
  EVP: "a UUID",
};

/** The body of POST /payout: a withdrawal to a PIX key, identified by the merchant's `referenceId`. */
export const PayoutCreateParams: z.ZodMiniObject<
  {
    amount: z.ZodMiniInt;
    pixKey: z.ZodMiniString<string>;
    pixKeyType: typeof PixKeyTypeSchema;
    referenceId: typeof ReferenceId;
    beneficiaryName: z.ZodMiniOptional<z.ZodMiniString<string>>;
    beneficiaryDocument: z.ZodMiniOptional<z.ZodMiniString<string>>;
    webhookUrl: z.ZodMiniOptional<typeof HttpUrl>;
  },
  z.core.$strict
> = declared(
  z
    .strictObject({
      amount: centsUpTo(MAX_AMOUNT_CENTS.PAYOUT),
      // The 77-character e-mail rule belongs to the key check (INVALID_PIX_KEY); this cap stops huge strings.
      pixKey: text(256),
      pixKeyType: PixKeyTypeSchema,
      referenceId: ReferenceId,
      beneficiaryName: z.optional(text(200)),
      beneficiaryDocument: z.optional(
        storableString(
          z.refine((doc) => isValidCpf(doc) || isValidCnpj(doc), {
            error: "must be a valid CPF or CNPJ, digits only",
          }),
        ),
      ),
      webhookUrl: z.optional(HttpUrl),
    })
    .check(
      z.superRefine((payout, ctx) => {
        const type = payout.pixKeyType as PixKeyType | undefined;
        if (
          typeof payout.pixKey !== "string" ||
          !type ||
          !(PIX_KEY_TYPES as readonly string[]).includes(type)
        )
          return;
        if (!isValidPixKey(type, payout.pixKey)) {
          ctx.issues.push({
            code: "custom",
            path: ["pixKey"],
            message: `must be a valid ${type} key: ${KEY_RULES[type]}`,
            params: { code: "INVALID_PIX_KEY" },
            input: undefined,
          });
        }
      }),
    ),
);
/** The body of POST /payout. */
export type PayoutCreateParams = z.input<typeof PayoutCreateParams>;

const StatusString = z.string() as unknown as z.ZodMiniType<PayoutStatus>;

const payoutShape = {
  id: z.string(),
  externalId: z.nullable(z.string()),
  status: StatusString,
  amount: z.int(),
  currency: z.string(),
  pixKey: z.string(),
  pixKeyType: z.string() as unknown as z.ZodMiniType<PixKeyType | (string & {})>,
  referenceId: z.string(),
  beneficiaryName: z.string(),
  beneficiaryDocument: z.string(),
  feeAmount: z.nullable(z.int()),
  netAmount: z.nullable(z.int()),
  failureCode: z.optional(z.nullable(z.string())),
  createdAt: z.string(),
  updatedAt: z.string(),
};

/**
 * A payout as the service returns it. `feeAmount`, `netAmount` and `externalId` stay null until
 * the payout is PROCESSING; `failureCode` is `PROVIDER_REJECTED` on FAILED and REFUSED payouts.
 */
export const Payout: z.ZodMiniObject<
  {
    id: z.ZodMiniString<string>;
    externalId: z.ZodMiniNullable<z.ZodMiniString<string>>;
    status: z.ZodMiniType<PayoutStatus>;
    amount: z.ZodMiniInt;
    currency: z.ZodMiniString<string>;
    pixKey: z.ZodMiniString<string>;
    pixKeyType: z.ZodMiniType<PixKeyType | (string & {})>;
    referenceId: z.ZodMiniString<string>;
    beneficiaryName: z.ZodMiniString<string>;
    beneficiaryDocument: z.ZodMiniString<string>;
    feeAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    netAmount: z.ZodMiniNullable<z.ZodMiniInt>;
    failureCode: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>;
    createdAt: z.ZodMiniString<string>;
    updatedAt: z.ZodMiniString<string>;
    bankReceipt: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniUnknown>>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    ...payoutShape,
    // "Its type once filled: not shown": kept as whatever the service sends.
    bankReceipt: z.optional(z.nullable(z.unknown())),
  }),
);
/** A payout as the service returns it. */
export type Payout = z.infer<typeof Payout>;

/** The query of GET /payout: filters and one page. Dates filter `createdAt` inclusively. */
export const PayoutListQuery: z.ZodMiniObject<
  {
    status: z.ZodMiniOptional<z.ZodMiniEnum<{ [Status in (typeof PAYOUT_STATUSES)[number]]: Status }>>;
    startDate: z.ZodMiniOptional<typeof IsoDateTime>;
    endDate: z.ZodMiniOptional<typeof IsoDateTime>;
    referenceId: z.ZodMiniOptional<typeof ReferenceId>;
    page: z.ZodMiniOptional<z.ZodMiniInt>;
    limit: z.ZodMiniOptional<z.ZodMiniInt>;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    status: z.optional(z.enum(PAYOUT_STATUSES)),
    startDate: z.optional(IsoDateTime),
    endDate: z.optional(IsoDateTime),
    referenceId: z.optional(ReferenceId),
    page: z.optional(z.int().check(z.gte(1))),
    limit: z.optional(z.int().check(z.gte(1), z.lte(100))),
  }),
);
/** The query of GET /payout. `page` defaults to 1, `limit` to 10 (at most 100). */
export type PayoutListQuery = z.input<typeof PayoutListQuery>;

/** Paging facts of a payout list: `totalPages` is `ceil(total / limit)`, 0 when there is nothing. */
export const PageMeta: z.ZodMiniObject<
  { total: z.ZodMiniInt; page: z.ZodMiniInt; limit: z.ZodMiniInt; totalPages: z.ZodMiniInt },
  z.core.$loose
> = declared(
  z.looseObject({
    total: z.int(),
    page: z.int(),
    limit: z.int(),
    totalPages: z.int(),
  }),
);
/** Paging facts of a payout list. */
export type PageMeta = z.infer<typeof PageMeta>;

/** One page of GET /payout, newest first. */
export const PayoutList: z.ZodMiniObject<
  { data: z.ZodMiniArray<typeof Payout>; meta: typeof PageMeta },
  z.core.$loose
> = declared(
  z.looseObject({
    data: z.array(Payout),
    meta: PageMeta,
  }),
);
/** One page of GET /payout. */
export type PayoutList = z.infer<typeof PayoutList>;

/** Default and maximum page sizes of GET /payout. */
export const PAYOUT_LIST_DEFAULTS = { page: 1, limit: 10, maxLimit: 100 } as const;
