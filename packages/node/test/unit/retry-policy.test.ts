import { describe, expect, it } from "vitest";
import { type Fate, fateOf, finalFate } from "../../src/core/outcome.js";
import {
  type AttemptEffect,
  type AttemptFailure,
  backoffDelay,
  classifyFailure,
  DEFAULT_BACKOFF,
  decideRetry,
  nextDelay,
  parseRetryAfter,
  RETRY_POLICY,
  type RetryClass,
  type RetryDecision,
} from "../../src/core/retry-policy.js";

const status = (s: number, code?: string): AttemptFailure => ({ kind: "status", status: s, code });
const timeout: AttemptFailure = { kind: "timeout" };
const unsent: AttemptFailure = { kind: "network", sent: "no" };
const maybeSent: AttemptFailure = { kind: "network", sent: "maybe" };
const unreadable: AttemptFailure = { kind: "unreadable" };

// The policy of docs/errors-and-retries.md as a table: [failure, read, create-payin, create-payout, what it says]
const TABLE: [string, AttemptFailure, RetryDecision, RetryDecision, RetryDecision, AttemptEffect][] = [
  ["connection refused / DNS", unsent, "retry", "retry", "retry", "none"],
  ["connection lost after sending", maybeSent, "retry", "fail", "lookup", "in-flight"],
  ["timeout", timeout, "retry", "fail", "lookup", "in-flight"],
  ["429", status(429, "RATE_LIMITED"), "retry", "retry", "retry", "none"],
  ["500 INTERNAL_ERROR", status(500, "INTERNAL_ERROR"), "retry", "fail", "lookup", "unknown"],
  ["502 non-JSON", status(502), "retry", "fail", "lookup", "unknown"],
  ["503", status(503, "INTERNAL_ERROR"), "retry", "fail", "lookup", "unknown"],
  ["501", status(501), "fail", "fail", "fail", "answered"],
  ["502 PROVIDER_ERROR", status(502, "PROVIDER_ERROR"), "retry", "fail", "fail", "answered"],
  ["502 TEMPORARY_UNAVAILABLE", status(502, "TEMPORARY_UNAVAILABLE"), "retry", "fail", "fail", "answered"],
  ["502 PROVIDER_REJECTED", status(502, "PROVIDER_REJECTED"), "retry", "fail", "fail", "answered"],
  ["400 INVALID_DATA", status(400, "INVALID_DATA"), "fail", "fail", "fail", "answered"],
  ["400 INSUFFICIENT_FUNDS", status(400, "INSUFFICIENT_FUNDS"), "fail", "fail", "fail", "answered"],
  ["401", status(401, "UNAUTHORIZED"), "fail", "fail", "fail", "answered"],
  ["403", status(403, "KYC_NOT_APPROVED"), "fail", "fail", "fail", "answered"],
  ["404", status(404, "NOT_FOUND"), "fail", "fail", "fail", "answered"],
  ["2xx unreadable", unreadable, "fail", "fail", "lookup", "took-effect"],
];

describe("decideRetry", () => {
  it.each(TABLE)("%s → read: %s, payin: %s, payout: %s", (_label, failure, read, payin, payout) => {
    const classes: RetryClass[] = ["read", "create-payin", "create-payout"];
    expect(classes.map((c) => decideRetry(c, failure))).toEqual([read, payin, payout]);
  });

  it.each(TABLE.map(([label, failure, , , , effect]) => [label, effect, failure] as const))(
    "%s says its effect is: %s",
    (_label, effect, failure) => {
      expect(RETRY_POLICY[classifyFailure(failure)].effect).toBe(effect);
    },
  );
});

describe("a creation's fate", () => {
  it.each<[AttemptEffect, Fate]>([
    ["none", "answered"],
    ["answered", "answered"],
    ["in-flight", "unknown"],
    ["unknown", "unknown"],
    ["took-effect", "took-effect"],
  ])("an attempt whose effect is %s, nothing looked up: %s", (effect, fate) => {
    expect(fateOf(effect)).toBe(fate);
  });

  it.each<[Fate, boolean, Fate]>([
    ["answered", false, "answered"],
    ["answered", true, "absent-but-in-flight"],
    ["absent", true, "absent-but-in-flight"],
    ["unknown", true, "absent-but-in-flight"],
    ["lookup-failed", true, "lookup-failed"],
    ["took-effect", true, "took-effect"],
    ["absent", false, "absent"],
  ])("last %s, an earlier attempt still in flight: %s → %s", (last, inFlight, fate) => {
    expect(finalFate(last, inFlight)).toBe(fate);
  });
});

describe("backoff", () => {
  it("is full jitter under an exponential ceiling capped at maxDelayMs", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => backoffDelay(n, DEFAULT_BACKOFF, () => 0.999999))).toEqual([
      499, 999, 1999, 3999, 7999, 7999, 7999,
    ]);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(0);
  });

  it("uses the server's Retry-After as is, and ends retries beyond maxRetryAfterMs", () => {
    expect(nextDelay(0, 1_500, DEFAULT_BACKOFF, () => 0)).toBe(1_500);
    expect(nextDelay(0, 60_001, DEFAULT_BACKOFF)).toBeUndefined();
    expect(nextDelay(1, undefined, DEFAULT_BACKOFF, () => 0.5)).toBe(500);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T12:00:00Z");
  it.each<[string | null, number | undefined]>([
    ["1", 1_000],
    ["0", 0],
    ["2.5", 2_500],
    ["Sun, 22 Nov 2026 12:00:30 GMT", 30_000],
    ["Sun, 22 Nov 2026 11:00:00 GMT", 0],
    ["soon", undefined],
    ["-5", undefined],
    [null, undefined],
  ])("%s → %s ms", (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});
