import { describe, expect, it } from "vitest";
import {
  canPayinTransition,
  canPayoutTransition,
  ERROR_CODES,
  ERROR_STATUS,
  isFinalPayinStatus,
  isFinalPayoutStatus,
  isPayoutNightTime,
  PAYIN_STATUSES,
  PAYOUT_STATUSES,
  payinFee,
  payoutLimitAt,
  percentOf,
} from "../src/index.js";

describe("payin transitions (docs/decisions/payin-statuses.md)", () => {
  it.each([
    ["PENDING", "APPROVED", true],
    ["PENDING", "REFUSED", true],
    ["PENDING", "EXPIRED", true],
    ["PENDING_3DS", "APPROVED", true],
    ["PENDING_3DS", "REFUSED", true],
    ["PENDING_3DS", "EXPIRED", true],
    ["PENDING_3DS", "PENDING", false],
    ["APPROVED", "REFUSED", false],
    ["EXPIRED", "APPROVED", false],
  ] as const)("%s → %s allowed: %s", (from, to, allowed) => {
    expect(canPayinTransition(from, to)).toBe(allowed);
  });

  it("APPROVED, REFUSED and EXPIRED are final", () => {
    expect(PAYIN_STATUSES.filter(isFinalPayinStatus)).toEqual(["APPROVED", "REFUSED", "EXPIRED"]);
  });
});

describe("payout transitions (spec: States and transitions; docs/decisions/payout-statuses.md)", () => {
  it.each([
    ["PENDING", "PROCESSING", true],
    ["PROCESSING", "COMPLETED", true],
    ["PROCESSING", "FAILED", true],
    ["PROCESSING", "REFUSED", true],
    ["AWAITING_APPROVAL", "APPROVED", true],
    ["AWAITING_APPROVAL", "CANCELED", true],
    ["APPROVED", "PROCESSING", true],
    ["COMPLETED", "REFUNDED", true],
    ["PENDING", "COMPLETED", false],
    ["FAILED", "PROCESSING", false],
    ["AWAITING_APPROVAL", "PROCESSING", false],
  ] as const)("%s → %s allowed: %s", (from, to, allowed) => {
    expect(canPayoutTransition(from, to)).toBe(allowed);
  });

  it("FAILED, CANCELED, REFUSED and REFUNDED are final; COMPLETED is not", () => {
    expect(PAYOUT_STATUSES.filter(isFinalPayoutStatus).sort()).toEqual([
      "CANCELED",
      "FAILED",
      "REFUNDED",
      "REFUSED",
    ]);
  });

  it("unknown statuses are tolerated, never final, and go nowhere", () => {
    expect(isFinalPayoutStatus("ON_HOLD")).toBe(false);
    expect(canPayoutTransition("ON_HOLD", "COMPLETED")).toBe(false);
  });
});

describe("error codes and statuses (spec: Errors; docs/decisions/error-body.md)", () => {
  it.each([
    ["INVALID_DATA", 400],
    ["REJECTED_BY_RISK", 400],
    ["PAYER_LIMIT_REJECTED", 400],
    ["INVALID_CVV", 400],
    ["PROVIDER_ERROR", 502],
    ["INSUFFICIENT_FUNDS", 400],
    ["INVALID_PIX_KEY", 400],
    ["BEYOND_LIMITS", 400],
    ["TEMPORARY_UNAVAILABLE", 502],
    ["PROVIDER_REJECTED", 502],
    ["UNAUTHORIZED", 401],
    ["KYC_NOT_APPROVED", 403],
    ["CREDIT_CARD_NOT_ENABLED", 403],
    ["NOT_FOUND", 404],
    ["METHOD_NOT_ALLOWED", 405],
    ["PAYLOAD_TOO_LARGE", 413],
    ["UNSUPPORTED_MEDIA_TYPE", 415],
    ["RATE_LIMITED", 429],
    ["INTERNAL_ERROR", 500],
  ] as const)("%s is %i", (code, status) => {
    expect(ERROR_STATUS[code]).toBe(status);
  });

  it("every code has a status", () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe("fees (docs/decisions/fees-and-reserve.md)", () => {
  it.each([
    ["PIX", 10000, 99],
    ["OPEN_FINANCE", 10000, 99],
    ["BOLETO", 10000, 349],
    ["CREDIT_CARD", 10000, 399],
    ["PIX", 50, 0],
    ["PIX", 51, 1],
    ["CREDIT_CARD", 12345, 493],
    ["BOLETO", 100, 100],
  ] as const)("%s of %i cents costs %i cents", (method, amount, fee) => {
    expect(payinFee(method, amount)).toBe(fee);
  });

  it("percentages round half-up to the cent in integer arithmetic", () => {
    expect(percentOf(50, 100)).toBe(1);
    expect(percentOf(49, 100)).toBe(0);
    expect(percentOf(9_007_199_254_740, 399)).toBe(359_387_250_264);
  });
});

describe("payout limits by time of day (docs/decisions/payout-limits.md, São Paulo time)", () => {
  it.each([
    ["2026-03-10T22:59:59Z", false, 10_000_000],
    ["2026-03-10T23:00:00Z", true, 100_000],
    ["2026-03-11T08:59:59Z", true, 100_000],
    ["2026-03-11T09:00:00Z", false, 10_000_000],
  ])("at %s night=%s, max %i cents", (at, night, max) => {
    expect(isPayoutNightTime(new Date(at))).toBe(night);
    expect(payoutLimitAt(new Date(at))).toBe(max);
  });
});
