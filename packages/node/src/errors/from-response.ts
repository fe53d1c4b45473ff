import type { ErrorBody } from "@paykit/contract";
import { loadedContract } from "../core/contract.js";
import {
  type ApiErrorInit,
  AuthenticationError,
  BeyondLimitsError,
  InsufficientFundsError,
  InvalidPixKeyError,
  InvalidRequestError,
  NotFoundError,
  PaykitApiError,
  PaymentRefusedError,
  PermissionError,
  ProviderError,
  RateLimitError,
  UNKNOWN_ERROR,
} from "./api-error.js";

type ApiErrorClass = new (init: ApiErrorInit) => PaykitApiError;

/** Business codes decide the class first: they are the meaning; the status only backs them up. */
const BY_CODE: Record<string, ApiErrorClass> = {
  INVALID_DATA: InvalidRequestError,
  REJECTED_BY_RISK: PaymentRefusedError,
  PAYER_LIMIT_REJECTED: PaymentRefusedError,
  INVALID_CVV: PaymentRefusedError,
  INSUFFICIENT_FUNDS: InsufficientFundsError,
  INVALID_PIX_KEY: InvalidPixKeyError,
  BEYOND_LIMITS: BeyondLimitsError,
  PROVIDER_ERROR: ProviderError,
  TEMPORARY_UNAVAILABLE: ProviderError,
  PROVIDER_REJECTED: ProviderError,
};

const BY_STATUS: Record<number, ApiErrorClass> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  429: RateLimitError,
};

const MAX_RAW_BODY = 65_536;

/** The service's JSON error body, or null when the answer is something else (a proxy's HTML). */
function parseErrorBody(text: string): { json: unknown; body: ErrorBody | null } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { json: undefined, body: null };
  }
  const parsed = loadedContract().ErrorBody.safeParse(json);
  return { json, body: parsed.success ? parsed.data : null };
}

/** The error class and facts of a non-2xx answer, from its status, headers and raw text. */
export function apiErrorFromResponse(
  status: number,
  headers: Headers,
  text: string,
  request: string,
  retryAfterMs: number | undefined,
  context: Pick<ApiErrorInit, "attempts" | "note" | "requestId"> = {},
): PaykitApiError {
  const { json, body } = parseErrorBody(text);
  const contentType = headers.get("content-type") ?? "no content type";
  const init: ApiErrorInit = body
    ? {
        status,
        code: body.code,
        message: body.message,
        details: body.details ?? [],
        body: json,
        headers,
        request,
        retryAfterMs,
        ...context,
      }
    : {
        status,
        code: UNKNOWN_ERROR,
        message: `The service answered ${status} with a body that is not a Paykit error (${contentType})`,
        body: json ?? (text.length > MAX_RAW_BODY ? text.slice(0, MAX_RAW_BODY) : text),
        headers,
        request,
        retryAfterMs,
        ...context,
      };
  const ErrorClass = (body && BY_CODE[body.code]) || BY_STATUS[status];
  if (ErrorClass) return new ErrorClass(init);
  const retryable = status >= 500 && status !== 501;
  return new PaykitApiError(
    init,
    retryable
      ? "The service failed; trying again later is safe for reads (payouts: look up the referenceId first)."
      : "This answer was not expected for this call; check baseUrl and the SDK version.",
    retryable,
  );
}
