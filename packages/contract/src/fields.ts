import * as z from "zod/mini";
import { MAX_AMOUNT_CENTS } from "./amounts.js";
import { isStorableText, STORABLE_TEXT_MESSAGE, unstorableTextPaths } from "./storable-text.js";
import { isValidIpv4 } from "./validators/index.js";

export { MAX_AMOUNT_CENTS };

// One check object for every text field: a string schema of a request is built by storableString, so
// the rule is written once (docs/decisions.md ("Storable text")).
const storable = z.refine<string>(isStorableText, { error: STORABLE_TEXT_MESSAGE });

/**
 * A string schema whose value must be storable text (no lone UTF-16 surrogate, no NUL), then pass
 * `checks`: every text field of a request is one.
 */
export function storableString(...checks: StringCheck[]): z.ZodMiniString<string> {
  return z.string().check(storable, ...checks);
}

type StringCheck = Parameters<z.ZodMiniString["check"]>[number];

/**
 * Adds to an opaque JSON schema (split rules, 3DS data) the storable-text rule for every string and
 * object key inside it, each failure at its own path.
 */
export function storableJson<S extends z.ZodMiniType>(schema: S): S {
  return schema.check(
    z.superRefine((value, ctx) => {
      for (const { path, key } of unstorableTextPaths(value)) {
        ctx.issues.push({
          code: "custom",
          path,
          message: key ? `keys ${STORABLE_TEXT_MESSAGE}` : STORABLE_TEXT_MESSAGE,
          input: undefined,
        });
      }
    }),
  ) as S;
}

// Upper bounds keep a hostile or buggy caller from storing megabytes in one field; they are
// generous for real data (the spec leaves them open; docs/decisions.md ("Requests") records them).

/** An amount of money in integer cents of BRL, at least 1 (R$ 0,01). */
export const Cents: z.ZodMiniInt = z.int().check(z.gte(1));

/** Integer cents from 1 up to `max`. */
export function centsUpTo(max: number): z.ZodMiniInt {
  return z.int().check(z.gte(1), z.lte(max));
}

/** A non-empty string of at most `max` characters (unicode is fine; storable text, see {@link storableString}). */
export function text(max: number): z.ZodMiniString<string> {
  return storableString(z.minLength(1), z.maxLength(max));
}

/** The merchant's own id for reconciliation: 1-100 characters, no control characters. */
export const ReferenceId: z.ZodMiniString<string> = storableString(
  z.minLength(1),
  z.maxLength(100),
  // U+0000-U+001F and U+007F-U+009F are exactly Unicode's Cc class, spelled so every regex engine (RE2 too) reads it.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  z.regex(/^[^\x00-\x1F\x7F-\x9F]*$/, { error: "must not contain control characters" }),
);

/** An absolute http(s) URL of at most 2048 characters that receives webhooks. */
export const HttpUrl: z.ZodMiniString<string> = storableString(
  z.maxLength(2048),
  z.refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: "must be an absolute http(s) URL" },
  ),
);

/** A dotted-quad IPv4 address. */
export const Ipv4: z.ZodMiniString<string> = storableString(
  z.refine(isValidIpv4, { error: "must be a dotted IPv4 address" }),
);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time (`2026-01-31` or `2026-01-31T12:00:00Z`). */
export const IsoDateTime: z.ZodMiniString<string> = storableString(
  z.refine((value) => ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)), {
    error: "must be an ISO 8601 date or date-time",
  }),
);
