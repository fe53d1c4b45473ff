import * as z from "zod/mini";
import { declared } from "./declared.js";

/**
 * Every error code the service answers with: the spec's codes plus those
 * docs/decisions/error-body.md adds.
 */
export const ERROR_CODES = [
  "INVALID_DATA",
  "REJECTED_BY_RISK",
  "PAYER_LIMIT_REJECTED",
  "INVALID_CVV",
  "PROVIDER_ERROR",
  "INSUFFICIENT_FUNDS",
  "INVALID_PIX_KEY",
  "BEYOND_LIMITS",
  "TEMPORARY_UNAVAILABLE",
  "PROVIDER_REJECTED",
  "UNAUTHORIZED",
  "KYC_NOT_APPROVED",
  "CREDIT_CARD_NOT_ENABLED",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
] as const;
/** An error code this version knows. */
export type KnownErrorCode = (typeof ERROR_CODES)[number];
/** An error code; a newer service may send codes this version does not know. */
export type ErrorCode = KnownErrorCode | (string & {});

/**
 * The HTTP status that goes with each error code (spec: Errors;
 * docs/decisions/error-body.md).
 */
export const ERROR_STATUS: Readonly<Record<KnownErrorCode, number>> = {
  INVALID_DATA: 400,
  REJECTED_BY_RISK: 400,
  PAYER_LIMIT_REJECTED: 400,
  INVALID_CVV: 400,
  PROVIDER_ERROR: 502,
  INSUFFICIENT_FUNDS: 400,
  INVALID_PIX_KEY: 400,
  BEYOND_LIMITS: 400,
  TEMPORARY_UNAVAILABLE: 502,
  PROVIDER_REJECTED: 502,
  UNAUTHORIZED: 401,
  KYC_NOT_APPROVED: 403,
  CREDIT_CARD_NOT_ENABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
};

/** One failing field of an `INVALID_DATA` answer: a dot path with array indices and what is wrong. */
export const ErrorDetail: z.ZodMiniObject<
  { path: z.ZodMiniString<string>; message: z.ZodMiniString<string> },
  z.core.$loose
> = declared(
  z.looseObject({
    path: z.string(),
    message: z.string(),
  }),
);
/** One failing field: `{ path: "items.0.quantity", message: "must be at least 1" }`. */
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** The JSON body of every non-2xx answer: a stable `code`, a readable `message`, and field `details`. */
export const ErrorBody: z.ZodMiniObject<
  {
    code: z.ZodMiniString<string>;
    message: z.ZodMiniString<string>;
    details: z.ZodMiniOptional<z.ZodMiniArray<typeof ErrorDetail>>;
  },
  z.core.$loose
> = declared(
  z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.optional(z.array(ErrorDetail)),
  }),
);
/** The JSON body of every non-2xx answer of the service. */
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Whether `code` is one of the codes this version knows. */
export function isKnownErrorCode(code: unknown): code is KnownErrorCode {
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}
