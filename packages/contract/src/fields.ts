import * as z from "zod/mini";
import { MAX_AMOUNT_CENTS } from "./amounts.js";
import { isIsoDateTime } from "./date-time.js";
import { isStorableText, STORABLE_TEXT_MESSAGE, unstorableTextPaths } from "./storable-text.js";
import { isValidIpv4 } from "./validators/index.js";

export { MAX_AMOUNT_CENTS };

// One check object for every text field: a string schema of a request is built by storableString, so
// the rule is written once (docs/decisions/shared-sandbox-storable-text.md).
const storable = z.refine<string>(isStorableText, { error: STORABLE_TEXT_MESSAGE });

/**
 * A string schema whose value must be storable text (no lone UTF-16 surrogate, no NUL), then pass
 * `checks`: every text field of a request is one.
 */
export function storableString(...checks: StringCheck[]): z.ZodMiniString<string> {
  return z.string().check(storable, ...checks);
}

type StringCheck = Parameters<z.ZodMiniString["check"]>[number];

/** Whether `schema` was made by {@link storableString} (the OpenAPI generator states the rule as a pattern). */
export function isStorableString(schema: unknown): boolean {
  const checks = (schema as { _zod?: { def?: { checks?: unknown[] } } } | null)?._zod?.def?.checks;
  return Array.isArray(checks) && checks.includes(storable);
}

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
// generous for real data (the spec leaves them open; docs/decisions/requests.md records them).

/** What an `INVALID_DATA` detail says of an amount that is not a whole number of cents. */
export const CENTS_MESSAGE = "must be an integer in cents (14990 = R$ 149,90)";

// The schema's own message, so the client and the mock say it alike; a missing amount is still "is required".
const centsInt = () => z.int({ error: (issue) => (issue.input === undefined ? undefined : CENTS_MESSAGE) });

/** An amount of money in integer cents of BRL, at least 1 (R$ 0,01). */
export const Cents: z.ZodMiniInt = centsInt().check(z.gte(1));

/** Integer cents from `min` up (a price that may be free: `min` 0). */
export function centsFrom(min: number): z.ZodMiniInt {
  return centsInt().check(z.gte(min));
}

/** Integer cents from `min` (default 1, R$ 0,01) up to `max`. */
export function centsUpTo(max: number, min = 1): z.ZodMiniInt {
  return centsInt().check(z.gte(min), z.lte(max));
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

/**
 * A date or date-time that exists: any RFC 3339 date-time (`2026-01-31T12:00:00Z`, `…T23:59:60Z`,
 * `…t12:00:00.123456z`, `…T09:00:00-03:00`) or ISO 8601's shorter forms (`2026-01-31`, no seconds, no
 * zone for UTC); `2026-02-30` is refused. `dateTimeBounds` reads it.
 */
export const IsoDateTime: z.ZodMiniString<string> = storableString(
  z.refine(isIsoDateTime, {
    error: "must be an ISO 8601 date or date-time that exists (2026-01-31 or 2026-01-31T12:00:00Z)",
  }),
);
