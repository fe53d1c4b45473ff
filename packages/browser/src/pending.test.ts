import { isPendingThreeDS } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { pendingPayin } from "../test/fixtures.js";
import { notPendingReason } from "./pending.js";

describe("notPendingReason agrees with the contract's isPendingThreeDS", () => {
  it.each([
    ["a PENDING_3DS card payin", pendingPayin()],
    ["an APPROVED card payin", pendingPayin({ status: "APPROVED", threeDSecurePending: false })],
    ["a REFUSED card payin", pendingPayin({ status: "REFUSED" })],
    ["threeDSecurePending false", pendingPayin({ threeDSecurePending: false })],
    ["threeDSecurePending 'true' as text", pendingPayin({ threeDSecurePending: "true" })],
    ["a PIX payin", pendingPayin({ paymentMethod: "PIX" })],
    ["no session", pendingPayin({ threeDSecureSession: undefined })],
    ["no transaction id", pendingPayin({ threeDSecureTransactionId: undefined })],
    ["no SDK URL", pendingPayin({ threeDSecureSdkUrl: undefined })],
    ["a numeric session", pendingPayin({ threeDSecureSession: 42 })],
    ["an empty object", {}],
  ])("%s", (_, payin) => {
    expect(notPendingReason(payin) === undefined).toBe(isPendingThreeDS(payin));
  });
});
