import { beforeAll, describe, expect, it } from "vitest";
import { loadContract } from "../../src/core/contract.js";
import { apiErrorFromResponse } from "../../src/errors/from-response.js";
import {
  isPaykitApiError,
  isPaykitConnectionError,
  isPaykitError,
  isPaykitTimeoutError,
  isPaykitValidationError,
  PaykitApiError,
  PaykitError,
} from "../../src/index.js";

const json = (code: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ code, message: `${code} message`, ...extra });
const headers = new Headers({ "content-type": "application/json" });

// The client loads the contract before any request; these tests call the error mapping directly.
beforeAll(() => loadContract());

describe("an error answer maps to its class by code, then by status (docs/decisions/client-errors.md)", () => {
  it.each([
    [400, "INVALID_DATA", "InvalidRequestError", false],
    [400, "REJECTED_BY_RISK", "PaymentRefusedError", false],
    [400, "PAYER_LIMIT_REJECTED", "PaymentRefusedError", false],
    [400, "INVALID_CVV", "PaymentRefusedError", false],
    [400, "INSUFFICIENT_FUNDS", "InsufficientFundsError", false],
    [400, "INVALID_PIX_KEY", "InvalidPixKeyError", false],
    [400, "BEYOND_LIMITS", "BeyondLimitsError", false],
    [502, "PROVIDER_ERROR", "ProviderError", true],
    [502, "TEMPORARY_UNAVAILABLE", "ProviderError", true],
    [502, "PROVIDER_REJECTED", "ProviderError", false],
    [401, "UNAUTHORIZED", "AuthenticationError", false],
    [403, "KYC_NOT_APPROVED", "PermissionError", false],
    [403, "CREDIT_CARD_NOT_ENABLED", "PermissionError", false],
    [404, "NOT_FOUND", "NotFoundError", false],
    [429, "RATE_LIMITED", "RateLimitError", true],
    [400, "SOME_NEW_CODE", "InvalidRequestError", false],
    [405, "METHOD_NOT_ALLOWED", "PaykitApiError", false],
    [413, "PAYLOAD_TOO_LARGE", "PaykitApiError", false],
    [500, "INTERNAL_ERROR", "PaykitApiError", true],
  ])("%i %s → %s (retryable: %s)", (status, code, name, retryable) => {
    const error = apiErrorFromResponse(status, headers, json(code), "POST /payout", undefined);
    expect(error).toBeInstanceOf(PaykitApiError);
    expect(error).toBeInstanceOf(PaykitError);
    expect(error).toMatchObject({
      name,
      code,
      status,
      retryable,
      request: "POST /payout",
      body: JSON.parse(json(code)),
    });
    expect(error.constructor.name).toBe(name);
    expect(error.message).toContain(`${code} message`);
    expect(isPaykitApiError(error)).toBe(true);
  });

  it("TEMPORARY_UNAVAILABLE carries a 5 minute retryAfterMs", () => {
    const error = apiErrorFromResponse(
      502,
      headers,
      json("TEMPORARY_UNAVAILABLE"),
      "POST /payout",
      undefined,
    );
    expect(error.retryAfterMs).toBe(300_000);
    expect(error.message).toMatch(/retry in 5 to 10 minutes/);
  });

  it("INVALID_DATA keeps every detail path", () => {
    const details = [
      { path: "customer.document", message: "must be a valid CPF" },
      { path: "items.0.quantity", message: "must be at least 1" },
    ];
    const error = apiErrorFromResponse(
      400,
      headers,
      json("INVALID_DATA", { details }),
      "POST /payin",
      undefined,
    );
    expect(error.details).toEqual(details);
  });

  it("a non-JSON body (a proxy's HTML 502) still yields a PaykitApiError with its status and raw text", () => {
    const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    const error = apiErrorFromResponse(
      502,
      new Headers({ "content-type": "text/html" }),
      html,
      "GET /payout",
      undefined,
    );
    expect(error).toMatchObject({
      name: "PaykitApiError",
      status: 502,
      code: "UNKNOWN_ERROR",
      body: html,
      retryable: true,
    });
    expect(error.message).toMatch(/502.*not a Paykit error \(text\/html\)/);
  });

  it("JSON that is not the error shape keeps the parsed body", () => {
    const error = apiErrorFromResponse(404, headers, '{"error":"nope"}', "GET /payin/x", undefined);
    expect(error).toMatchObject({ name: "NotFoundError", code: "UNKNOWN_ERROR", body: { error: "nope" } });
  });

  it("a 429 carries the Retry-After delay", () => {
    const error = apiErrorFromResponse(429, headers, json("RATE_LIMITED"), "GET /payout", 2_000);
    expect(error).toMatchObject({ name: "RateLimitError", retryAfterMs: 2_000 });
  });
});

describe("guards check name, so they work across realms and duplicate installs", () => {
  it.each([
    [isPaykitError, { name: "PaykitTimeoutError" }, true],
    [isPaykitError, { name: "TypeError" }, false],
    [isPaykitApiError, { name: "ProviderError" }, true],
    [isPaykitApiError, { name: "PaykitConnectionError" }, false],
    [isPaykitConnectionError, { name: "PaykitConnectionError" }, true],
    [isPaykitTimeoutError, { name: "PaykitTimeoutError" }, true],
    [isPaykitValidationError, { name: "PaykitValidationError" }, true],
    [isPaykitApiError, null, false],
    [isPaykitApiError, "PaykitApiError", false],
  ])("%o(%o) is %s", (guard, value, expected) => {
    expect(guard(value)).toBe(expected);
  });
});
