// The checkout's own types must accept every answer of the contract, so that they cannot drift from it.
import type { PayinCreated } from "@paykit/contract";
import type { PaymentStatus, PublicPaymentStatus } from "@paykit/node/checkout";
import { describe, expectTypeOf, it } from "vitest";
import type { CheckoutPayin, MountPaymentOptions, PaymentStatusUpdate } from "../src/checkout/index.js";
import { handlePendingThreeDS } from "../src/index.js";

describe("checkout types", () => {
  it("every 201 answer of POST /payin is a CheckoutPayin", () => {
    expectTypeOf<PayinCreated>().toExtend<CheckoutPayin>();
  });

  it("what createPaymentStatus sends is a PaymentStatusUpdate", () => {
    expectTypeOf<PaymentStatus>().toExtend<PaymentStatusUpdate>();
    expectTypeOf<PublicPaymentStatus>().toExtend<PaymentStatusUpdate>();
  });

  it("threeDS takes handlePendingThreeDS of this package as it is", () => {
    expectTypeOf({ handlePendingThreeDS, data: {} as never }).toExtend<
      NonNullable<MountPaymentOptions["threeDS"]>
    >();
  });
});
