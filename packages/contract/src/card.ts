import * as z from "zod/mini";
import { declared } from "./declared.js";
import { storableJson, storableString, text } from "./fields.js";
import { isValidCardNumber, isValidCvv, isValidExpiry } from "./validators/index.js";

/** Number of installments of a card payin: 1 to 12. */
export const Installments: z.ZodMiniInt = z.int().check(z.gte(1), z.lte(12));

// "Inner fields: not shown" in the spec: kept as an opaque object and passed through as sent.
const ThreeDSecureData: z.ZodMiniRecord<z.ZodMiniString<string>, z.ZodMiniUnknown> = storableJson(
  z.record(z.string(), z.unknown()),
);

/** A card given by the acquirer's token instead of its data. */
export const CardToken: z.ZodMiniObject<
  {
    token: z.ZodMiniString<string>;
    installments: typeof Installments;
    threeDSecure: z.ZodMiniOptional<z.ZodMiniRecord<z.ZodMiniString<string>, z.ZodMiniUnknown>>;
  },
  z.core.$strict
> = declared(
  z.strictObject({
    token: text(512),
    installments: Installments,
    threeDSecure: z.optional(ThreeDSecureData),
  }),
);
/** A card given by the acquirer's token. */
export type CardToken = z.infer<typeof CardToken>;

/** A card given by its data; never stored, logged or echoed by any Paykit package. */
export const CardData: z.ZodMiniObject<
  {
    holderName: z.ZodMiniString<string>;
    number: z.ZodMiniString<string>;
    expirationMonth: z.ZodMiniString<string>;
    expirationYear: z.ZodMiniString<string>;
    cvv: z.ZodMiniString<string>;
    installments: typeof Installments;
    threeDSecure: z.ZodMiniOptional<z.ZodMiniRecord<z.ZodMiniString<string>, z.ZodMiniUnknown>>;
  },
  z.core.$strict
> = declared(
  z
    .strictObject({
      holderName: text(100),
      number: storableString(
        z.refine(isValidCardNumber, {
          error: "must be a valid card number: 13-19 digits passing the Luhn check",
        }),
      ),
      expirationMonth: storableString(
        z.regex(/^(0[1-9]|1[0-2])$/, { error: "must be a two-digit month, 01-12" }),
      ),
      expirationYear: storableString(z.regex(/^\d{4}$/, { error: "must be a four-digit year" })),
      cvv: storableString(z.refine(isValidCvv, { error: "must be 3 or 4 digits" })),
      installments: Installments,
      threeDSecure: z.optional(ThreeDSecureData),
    })
    .check(
      z.superRefine((card, ctx) => {
        // Only a well-formed month and year can be compared with today; their own rules report the rest.
        const wellFormed =
          /^(0[1-9]|1[0-2])$/.test(card.expirationMonth) && /^\d{4}$/.test(card.expirationYear);
        if (wellFormed && !isValidExpiry(card.expirationMonth, card.expirationYear)) {
          ctx.issues.push({
            code: "custom",
            path: ["expirationYear"],
            message: "must not be in the past: the card has expired",
            input: undefined,
          });
        }
      }),
    ),
);
/** A card given by its data. */
export type CardData = z.infer<typeof CardData>;

/** The card of a CREDIT_CARD payin: a token, or the full card data. */
export const Card: z.ZodMiniUnion<readonly [typeof CardToken, typeof CardData]> = declared(
  z.union([CardToken, CardData]),
);
/** The card of a CREDIT_CARD payin: a token, or the full card data. */
export type Card = z.infer<typeof Card>;
