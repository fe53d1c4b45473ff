import type { Card, CreditCardPayinCreated, Customer, PendingThreeDSPayin } from "@paykit/contract";
import { describe, expectTypeOf, it } from "vitest";
import type {
  ThreeDSCard,
  ThreeDSChallengeData,
  ThreeDSCustomer,
  ThreeDSPayinResponse,
  ThreeDSResult,
} from "../src/index.js";
import { handlePendingThreeDS } from "../src/index.js";

// The browser package states its own input types so its .d.ts needs no @paykit/contract; these checks keep
// them in step with the contract, the single source of every wire shape.
describe("the browser's types accept the contract's wire shapes", () => {
  it("a CREDIT_CARD payin's 201 answer, pending or not, is a ThreeDSPayinResponse", () => {
    expectTypeOf<CreditCardPayinCreated>().toExtend<ThreeDSPayinResponse>();
    expectTypeOf<PendingThreeDSPayin>().toExtend<ThreeDSPayinResponse>();
  });

  it("the payin request's card and customer are what the challenge takes", () => {
    expectTypeOf<Card>().toExtend<ThreeDSCard>();
    expectTypeOf<Customer>().toExtend<ThreeDSCustomer>();
    expectTypeOf<{
      card: Card;
      customer: Customer;
      amount: number;
      installments: number;
    }>().toExtend<ThreeDSChallengeData>();
  });

  it("resolves a ThreeDSResult", () => {
    expectTypeOf(handlePendingThreeDS).returns.resolves.toEqualTypeOf<ThreeDSResult>();
  });
});
