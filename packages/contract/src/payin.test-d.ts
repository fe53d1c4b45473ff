import { describe, expectTypeOf, it } from "vitest";
import type {
  CardData,
  CardToken,
  KnownPayinStatus,
  PayinCreated,
  PayinCreatedFor,
  PayinCreateParams,
  PayinStatus,
  Payout,
  PendingThreeDSPayin,
} from "./index.js";
import { isPendingThreeDS } from "./index.js";

describe("payin types", () => {
  it("the request union narrows on paymentMethod", () => {
    const narrow = (params: PayinCreateParams) => {
      if (params.paymentMethod === "CREDIT_CARD") {
        expectTypeOf(params.card).toEqualTypeOf<CardToken | CardData>();
      } else {
        // @ts-expect-error: only CREDIT_CARD carries a card
        void params.card;
      }
    };
    void narrow;
  });

  it("the 201 answer narrows to the method's payment data", () => {
    expectTypeOf<PayinCreatedFor<"PIX">["pix"]["qrcode"]>().toEqualTypeOf<string>();
    expectTypeOf<PayinCreatedFor<"BOLETO">["boleto"]["barcode"]>().toEqualTypeOf<string>();
    expectTypeOf<PayinCreatedFor<"OPEN_FINANCE">["openFinanceRedirectUrl"]>().toEqualTypeOf<string>();
    expectTypeOf<PayinCreatedFor<"CREDIT_CARD">["threeDSecureSdkUrl"]>().toEqualTypeOf<string | undefined>();
    const answer = {} as PayinCreated;
    if (answer.paymentMethod === "PIX") expectTypeOf(answer.pix.qrcode).toBeString();
  });

  it("isPendingThreeDS narrows a card answer to its 3DS fields", () => {
    const answer = {} as PayinCreatedFor<"CREDIT_CARD">;
    if (isPendingThreeDS(answer)) {
      expectTypeOf(answer).toExtend<PendingThreeDSPayin>();
      expectTypeOf(answer.threeDSecureSdkUrl).toBeString();
    }
  });

  it("statuses keep autocompletion and tolerate new values", () => {
    expectTypeOf<KnownPayinStatus>().toExtend<PayinStatus>();
    expectTypeOf<"SOMETHING_NEW">().toExtend<PayinStatus>();
    expectTypeOf<Payout["status"]>().toExtend<string>();
  });

  it("money is a number of cents, never a string", () => {
    expectTypeOf<PayinCreateParams["amount"]>().toEqualTypeOf<number>();
    // @ts-expect-error: amounts are integers in cents, not strings
    const wrong: PayinCreateParams["amount"] = "100.00";
    void wrong;
  });
});
