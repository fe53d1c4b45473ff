import { describe, expect, it } from "vitest";
import { isKnownPayinStatus, isKnownPayoutStatus, PAYIN_STATUSES, PAYOUT_STATUSES } from "./index.js";

describe("isKnownPayinStatus / isKnownPayoutStatus", () => {
  it.each([
    ["every payin status of this version", isKnownPayinStatus, PAYIN_STATUSES, true],
    ["every payout status of this version", isKnownPayoutStatus, PAYOUT_STATUSES, true],
    [
      "a payin status from a newer service, or of payouts",
      isKnownPayinStatus,
      ["SETTLED", "COMPLETED", "approved", ""],
      false,
    ],
    [
      "a payout status from a newer service, or of payins",
      isKnownPayoutStatus,
      ["RETURNED", "EXPIRED", "pending", "toString"],
      false,
    ],
  ] as const)("%s → %s", (_, guard, statuses, known) => {
    for (const status of statuses) expect(guard(status), status).toBe(known);
  });
});
