// The two views of the contract agree: the types openapi-typescript generates from docs/openapi.json
// against the SDK's own types (@paykit/contract, which @paykit/node re-exports).
import type {
  ErrorBody,
  KnownErrorCode,
  KnownPayinStatus,
  KnownPayoutStatus,
  Payin,
  PayinCreated,
  PayinWebhookBody,
  PaymentMethod,
  Payout,
  PayoutList,
  PayoutWebhookBody,
  PixKeyType,
} from "@paykit/contract";
import { describe, expectTypeOf, it } from "vitest";
import type { components, operations } from "./generated/openapi.js";

type S = components["schemas"];
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Responses<O extends keyof operations> = operations[O]["responses"];
type ErrorCodeOf<O extends keyof operations> = {
  [K in keyof Responses<O>]: Json<Responses<O>[K]> extends { code: infer C } ? C : never;
}[keyof Responses<O>];
type DocumentErrorCode =
  | ErrorCodeOf<"createPayin">
  | ErrorCodeOf<"retrievePayin">
  | ErrorCodeOf<"createPayout">
  | ErrorCodeOf<"listPayouts">;

describe("generated response types are assignable to the SDK's", () => {
  it("records and lists", () => {
    expectTypeOf<Json<Responses<"createPayin">[201]>>().toExtend<PayinCreated>();
    expectTypeOf<Json<Responses<"retrievePayin">[200]>>().toExtend<Payin>();
    expectTypeOf<Json<Responses<"createPayout">[201]>>().toExtend<Payout>();
    expectTypeOf<Json<Responses<"listPayouts">[200]>>().toExtend<PayoutList>();
    expectTypeOf<S["PayinWebhookBody"]>().toExtend<PayinWebhookBody>();
    expectTypeOf<S["PayoutWebhookBody"]>().toExtend<PayoutWebhookBody>();
    expectTypeOf<Json<Responses<"createPayin">[400]>>().toExtend<ErrorBody>();
  });
});

describe("the SDK's known literals equal the document's enums", () => {
  it("statuses, methods, key types", () => {
    expectTypeOf<S["Payin"]["status"]>().toEqualTypeOf<KnownPayinStatus>();
    expectTypeOf<S["PayinWebhookBody"]["status"]>().toEqualTypeOf<KnownPayinStatus>();
    expectTypeOf<S["Payout"]["status"]>().toEqualTypeOf<KnownPayoutStatus>();
    expectTypeOf<S["PayoutWebhookBody"]["status"]>().toEqualTypeOf<KnownPayoutStatus>();
    expectTypeOf<S["Payin"]["paymentMethod"]>().toEqualTypeOf<PaymentMethod>();
    expectTypeOf<S["Payout"]["pixKeyType"]>().toEqualTypeOf<PixKeyType>();
  });

  it("error codes (METHOD_NOT_ALLOWED answers a method no operation has)", () => {
    expectTypeOf<DocumentErrorCode>().toEqualTypeOf<Exclude<KnownErrorCode, "METHOD_NOT_ALLOWED">>();
    // the error body's vocabulary: every code, METHOD_NOT_ALLOWED included
    expectTypeOf<S["ErrorBody"]["code"]>().toEqualTypeOf<KnownErrorCode>();
  });
});
