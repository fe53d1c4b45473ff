import { canPayinTransition, canPayoutTransition } from "@paykit/contract/rules";
import { describe, expect, it } from "vitest";
import {
  orderClaimOf,
  parseWebhook,
  webhookOrderClaim,
  webhookOrderKey,
  webhookOrderVerdict,
} from "../src/index.js";
import { payinBody, payoutBody } from "./fixtures.js";
import { ORDER_PAIRS } from "./order-tables.js";

const AT = "2026-11-22T10:00:00.000Z";
const T = Date.parse(AT);
const known = (status: string, updatedAtMs = T) => ({ status, updatedAtMs });
const claim = (kind: "payin" | "payout", status: string, updatedAtMs: number) =>
  orderClaimOf(kind, status, new Date(updatedAtMs).toISOString());

describe("webhookOrderVerdict over every pair of the transition tables", () => {
  it.each(ORDER_PAIRS.map((p) => [p.kind, p.known, p.incoming, p.verdict, p] as const))(
    "%s known %s, then %s: %s (the same or a newer updatedAt); stale when older",
    (_kind, _known, _incoming, _verdict, pair) => {
      expect(webhookOrderVerdict(claim(pair.kind, pair.incoming, T), known(pair.known))).toBe(pair.verdict);
      expect(webhookOrderVerdict(claim(pair.kind, pair.incoming, T + 1), known(pair.known))).toBe(
        pair.verdict,
      );
      expect(webhookOrderVerdict(claim(pair.kind, pair.incoming, T - 1), known(pair.known))).toBe("stale");
    },
  );

  it("the hand-written tables agree with the contract's: every transition it allows moves forward", () => {
    for (const pair of ORDER_PAIRS) {
      const direct =
        pair.kind === "payout"
          ? canPayoutTransition(pair.known, pair.incoming)
          : canPayinTransition(pair.known, pair.incoming);
      if (direct) expect(pair.verdict, `${pair.known} → ${pair.incoming}`).toBe("forward");
    }
    expect(ORDER_PAIRS.filter((p) => p.kind === "payout")).toHaveLength(81);
    expect(ORDER_PAIRS.filter((p) => p.kind === "payin")).toHaveLength(25);
  });

  it("anything moves a resource nothing is known of forward, even a late event", () => {
    expect(webhookOrderVerdict(claim("payout", "PROCESSING", T), null)).toBe("forward");
  });
});

describe("statuses this version does not know (a newer service's)", () => {
  it.each([
    ["a new status after a known one, newer", "COMPLETED", "RETURNED", 1, "forward"],
    ["a new status after a final one, newer", "REFUNDED", "RETURNED", 1, "forward"],
    [
      "a new status at the same updatedAt: the tables cannot break the tie",
      "COMPLETED",
      "RETURNED",
      0,
      "stale",
    ],
    ["a new status, older", "COMPLETED", "RETURNED", -1, "stale"],
    ["a known status after a new one, newer", "RETURNED", "REFUNDED", 1, "forward"],
    ["a known status after a new one, same updatedAt", "RETURNED", "REFUNDED", 0, "stale"],
    ["the new status again", "RETURNED", "RETURNED", 0, "repeat"],
    ["the new status again, newer", "RETURNED", "RETURNED", 5, "repeat"],
    ["two new statuses, newer", "RETURNED", "RECLAIMED", 1, "forward"],
  ])("%s: %s then %s", (_name, before, after, ms, verdict) => {
    expect(webhookOrderVerdict(claim("payout", after, T + ms), known(before))).toBe(verdict);
  });
});

describe("webhookOrderClaim", () => {
  it("reads a payout event's status and updatedAt, and what it may follow in the tables", () => {
    const event = parseWebhook(JSON.stringify({ ...payoutBody, status: "COMPLETED" }));
    expect(webhookOrderClaim(event)).toMatchObject({
      status: "COMPLETED",
      updatedAtMs: Date.parse(payoutBody.updatedAt),
      follows: ["APPROVED", "AWAITING_APPROVAL", "PENDING", "PROCESSING"],
    });
    expect(webhookOrderKey(event)).toBe(`payout:${payoutBody.id}`);
  });

  it("a status this version does not know follows nothing the tables say", () => {
    const event = parseWebhook(JSON.stringify({ ...payinBody, status: "CHARGED_BACK" }));
    expect(webhookOrderClaim(event).follows).toEqual([]);
    expect(webhookOrderKey(event)).toBe(`payin:${payinBody.id}`);
  });

  it.each([
    ["updatedAt", { updatedAt: "yesterday" }, /event\.data\.updatedAt must be an ISO 8601 date-time/],
    ["updatedAt", { updatedAt: undefined }, /event\.data\.updatedAt/],
    ["status", { status: "" }, /event\.data\.status must be a non-empty string/],
  ])("refuses an event whose %s cannot be ordered, naming the field", (_field, change, message) => {
    const event = parseWebhook(JSON.stringify(payinBody));
    const broken = { ...event, data: { ...event.data, ...change } } as typeof event;
    expect(() => webhookOrderClaim(broken)).toThrow(TypeError);
    expect(() => webhookOrderClaim(broken)).toThrow(message);
  });

  it("refuses a kind or id that names no resource", () => {
    expect(() => orderClaimOf("refund" as "payin", "PENDING", AT)).toThrow(
      /kind must be "payin" or "payout"/,
    );
    expect(() => webhookOrderKey({ kind: "payin", id: "" })).toThrow(/event\.id must be a non-empty string/);
  });
});
