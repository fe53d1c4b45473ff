import { describe, expectTypeOf, it } from "vitest";
import type { KnownPayinStatus, KnownPayoutStatus, PayinStatus, PayoutStatus } from "./index.js";
import { isKnownPayinStatus, isKnownPayoutStatus } from "./index.js";

describe("known statuses", () => {
  it("a PayinStatus keeps unknown strings, so it cannot be switched over exhaustively", () => {
    expectTypeOf<"SETTLED">().toExtend<PayinStatus>();
    expectTypeOf<PayinStatus>().not.toEqualTypeOf<KnownPayinStatus>();
  });

  it("isKnownPayinStatus narrows to the known union; a switch over it is checked for exhaustiveness", () => {
    const label = (status: PayinStatus): string => {
      if (!isKnownPayinStatus(status)) {
        expectTypeOf(status).toExtend<string>(); // kept as text: show it, store it, alert on it
        return `unknown: ${status}`;
      }
      expectTypeOf(status).toEqualTypeOf<KnownPayinStatus>();
      switch (status) {
        case "PENDING":
        case "PENDING_3DS":
          return "waiting";
        case "APPROVED":
          return "paid";
        case "REFUSED":
        case "EXPIRED":
          return "not paid";
        default: {
          const unhandled: never = status;
          return unhandled;
        }
      }
    };
    void label;
  });

  it("a switch that misses a known status is a type error", () => {
    const label = (status: KnownPayinStatus): string => {
      switch (status) {
        case "PENDING":
        case "PENDING_3DS":
        case "APPROVED":
        case "REFUSED":
          return "listed";
        default: {
          // @ts-expect-error: EXPIRED is not handled
          const unhandled: never = status;
          return unhandled;
        }
      }
    };
    void label;
  });

  it("isKnownPayoutStatus narrows a PayoutStatus the same way", () => {
    const narrow = (status: PayoutStatus) => {
      if (isKnownPayoutStatus(status)) expectTypeOf(status).toEqualTypeOf<KnownPayoutStatus>();
    };
    void narrow;
  });
});
