// withResponse() keeps each method's exact record type, and the awaited call is the record as before.
import { describe, expectTypeOf, it } from "vitest";
import type {
  FinalPayin,
  Payin,
  PayinCreated,
  PayinCreatedFor,
  PayinCreateParams,
  PayinWebhookEvent,
  Paykit,
  PaykitError,
  PaykitPromise,
  Payout,
  PayoutList,
  PayoutWebhookEvent,
  WebhookEvent,
  WithResponse,
} from "../../src/index.js";
import { card, payinBase } from "../support/fixtures.js";

declare const paykit: Paykit;

describe("payins.create: withResponse() narrows by paymentMethod, as awaiting does", () => {
  it("PIX", async () => {
    const call = paykit.payins.create({ ...payinBase, paymentMethod: "PIX" });
    expectTypeOf(call).toEqualTypeOf<PaykitPromise<PayinCreatedFor<"PIX">>>();
    const { data, response, requestId } = await call.withResponse();
    expectTypeOf(data).toEqualTypeOf<PayinCreatedFor<"PIX">>();
    expectTypeOf(data.pix.qrcode).toEqualTypeOf<string>();
    expectTypeOf(data.paymentMethod).toEqualTypeOf<"PIX">();
    expectTypeOf(response).toEqualTypeOf<Response>();
    expectTypeOf(requestId).toEqualTypeOf<string>();
  });

  it("BOLETO", async () => {
    const { data } = await paykit.payins.create({ ...payinBase, paymentMethod: "BOLETO" }).withResponse();
    expectTypeOf(data).toEqualTypeOf<PayinCreatedFor<"BOLETO">>();
    expectTypeOf(data.boleto).toMatchTypeOf<{ barcode: string; url: string }>();
    expectTypeOf(data.pix).toEqualTypeOf<unknown>();
  });

  it("OPEN_FINANCE", async () => {
    const { data } = await paykit.payins
      .create({ ...payinBase, paymentMethod: "OPEN_FINANCE" })
      .withResponse();
    expectTypeOf(data.openFinanceRedirectUrl).toEqualTypeOf<string>();
  });

  it("CREDIT_CARD", async () => {
    const { data } = await paykit.payins
      .create({ ...payinBase, paymentMethod: "CREDIT_CARD", card })
      .withResponse();
    expectTypeOf(data).toEqualTypeOf<PayinCreatedFor<"CREDIT_CARD">>();
    expectTypeOf(data.threeDSecurePending).toEqualTypeOf<boolean | undefined>();
  });

  it("a method known only as the union: the union of answers", async () => {
    const { data } = await paykit.payins.create({} as PayinCreateParams).withResponse();
    expectTypeOf(data).toEqualTypeOf<PayinCreatedFor<PayinCreateParams["paymentMethod"]>>();
    expectTypeOf(data).toMatchTypeOf<PayinCreated>();
  });
});

describe("every other call", () => {
  it("keeps its record type", () => {
    expectTypeOf(paykit.payins.retrieve("pi_1").withResponse()).resolves.toEqualTypeOf<WithResponse<Payin>>();
    expectTypeOf(paykit.payins.waitForFinal("pi_1").withResponse()).resolves.toEqualTypeOf<
      WithResponse<FinalPayin>
    >();
    expectTypeOf(paykit.payouts.create({} as never).withResponse()).resolves.toEqualTypeOf<
      WithResponse<Payout>
    >();
    expectTypeOf(paykit.payouts.list().withResponse()).resolves.toEqualTypeOf<WithResponse<PayoutList>>();
    expectTypeOf(paykit.payouts.findByReferenceId("r").withResponse()).resolves.toEqualTypeOf<
      WithResponse<Payout | null>
    >();
  });

  it("webhooks.confirm by the event's kind", () => {
    expectTypeOf(paykit.webhooks.confirm({} as PayinWebhookEvent).withResponse()).resolves.toEqualTypeOf<
      WithResponse<Payin>
    >();
    expectTypeOf(paykit.webhooks.confirm({} as PayoutWebhookEvent).withResponse()).resolves.toEqualTypeOf<
      WithResponse<Payout>
    >();
    expectTypeOf(paykit.webhooks.confirm({} as WebhookEvent).withResponse()).resolves.toEqualTypeOf<
      WithResponse<Payin | Payout>
    >();
  });

  it("asResponse() is a Response; awaiting is the record; then() is a plain promise", async () => {
    expectTypeOf(paykit.payouts.list().asResponse()).resolves.toEqualTypeOf<Response>();
    expectTypeOf(await paykit.payins.retrieve("pi_1")).toEqualTypeOf<Payin>();
    const chained = paykit.payins.retrieve("pi_1").then((payin) => payin.status);
    // @ts-expect-error only the call's own promise has the answer behind it
    chained.withResponse();
  });

  it("a PaykitPromise is a Promise of its record (a stand-in needs the two methods)", () => {
    expectTypeOf<PaykitPromise<Payin>>().toMatchTypeOf<Promise<Payin>>();
    expectTypeOf<Promise<Payin>>().not.toMatchTypeOf<PaykitPromise<Payin>>();
  });

  it("errors name the request id, undefined when nothing was sent", () => {
    expectTypeOf<PaykitError["requestId"]>().toEqualTypeOf<string | undefined>();
  });
});
