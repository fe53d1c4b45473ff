import { describe, expectTypeOf, it } from "vitest";
import {
  isPaykitApiError,
  type Payin,
  type PayinCreateParams,
  type Paykit,
  type PaykitApiError,
  type PaymentRefusedError,
  type Payout,
  type PayoutList,
  type ProviderError,
  type WebhookEvent,
} from "../../src/index.js";
import { card, payinBase } from "../support/fixtures.js";

declare const paykit: Paykit;

describe("payins.create narrows the answer by paymentMethod", () => {
  it("PIX answers carry pix.qrcode", async () => {
    const payin = await paykit.payins.create({ ...payinBase, paymentMethod: "PIX" });
    expectTypeOf(payin.paymentMethod).toEqualTypeOf<"PIX">();
    expectTypeOf(payin.pix.qrcode).toEqualTypeOf<string>();
    // Loose objects keep unknown fields, so another method's field is only `unknown`, never typed.
    expectTypeOf(payin.boleto).toEqualTypeOf<unknown>();
  });

  it("BOLETO answers carry the digitable line and the PDF URL", async () => {
    const payin = await paykit.payins.create({ ...payinBase, paymentMethod: "BOLETO" });
    expectTypeOf(payin.boleto).toMatchTypeOf<{ barcode: string; url: string }>();
    expectTypeOf(payin.pix).toEqualTypeOf<unknown>();
  });

  it("OPEN_FINANCE answers carry the bank redirect URL", async () => {
    const payin = await paykit.payins.create({ ...payinBase, paymentMethod: "OPEN_FINANCE" });
    expectTypeOf(payin.openFinanceRedirectUrl).toEqualTypeOf<string>();
  });

  it("CREDIT_CARD answers carry the optional 3DS fields", async () => {
    const payin = await paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card });
    expectTypeOf(payin.threeDSecureSdkUrl).toEqualTypeOf<string | undefined>();
    expectTypeOf(payin.threeDSecurePending).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(payin.pix).toEqualTypeOf<unknown>();
  });

  it("a request whose method is only known as the union gets the union of answers", async () => {
    const params = {} as PayinCreateParams;
    const payin = await paykit.payins.create(params);
    expectTypeOf(payin.paymentMethod).toEqualTypeOf<"PIX" | "BOLETO" | "CREDIT_CARD" | "OPEN_FINANCE">();
    if (payin.paymentMethod === "PIX") expectTypeOf(payin.pix.qrcode).toEqualTypeOf<string>();
  });

  it("a card payin without card does not compile", () => {
    // @ts-expect-error CREDIT_CARD needs card
    paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD" });
  });
});

describe("other resources", () => {
  it("have the contract's record types", () => {
    expectTypeOf(paykit.payins.retrieve("pi_1")).resolves.toEqualTypeOf<Payin>();
    expectTypeOf(paykit.payouts.list()).resolves.toEqualTypeOf<PayoutList>();
    expectTypeOf(paykit.payouts.findByReferenceId("r")).resolves.toEqualTypeOf<Payout | null>();
    expectTypeOf(paykit.payouts.listAll()).toMatchTypeOf<AsyncIterable<Payout>>();
  });

  it("webhooks.confirm resolves the record of the event's kind", async () => {
    const event = {} as WebhookEvent;
    if (event.kind === "payin") expectTypeOf(await paykit.webhooks.confirm(event)).toEqualTypeOf<Payin>();
    else expectTypeOf(await paykit.webhooks.confirm(event)).toEqualTypeOf<Payout>();
  });
});

describe("errors", () => {
  it("branch on string unions", () => {
    expectTypeOf<PaymentRefusedError["code"]>().toEqualTypeOf<
      "REJECTED_BY_RISK" | "PAYER_LIMIT_REJECTED" | "INVALID_CVV"
    >();
    expectTypeOf<ProviderError["code"]>().toEqualTypeOf<
      "PROVIDER_ERROR" | "TEMPORARY_UNAVAILABLE" | "PROVIDER_REJECTED"
    >();
    const error: unknown = null;
    if (isPaykitApiError(error)) expectTypeOf(error).toEqualTypeOf<PaykitApiError>();
  });
});
