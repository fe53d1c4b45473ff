import { PAYMENT_METHODS, PayinCreateParams, PayoutCreateParams, validate } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { createEngine, SAMPLE_CARD, samplePayin, samplePayout } from "../src/index.js";

describe("samples for merchants' tests", () => {
  it.each(PAYMENT_METHODS)("samplePayin(%s) is a valid request the mock accepts", async (method) => {
    const body = samplePayin(method);
    expect(validate(PayinCreateParams, body)).toMatchObject({ success: true });
    const engine = createEngine({ autoAdvance: false });
    const auth = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
    const res = await engine.handle(
      new Request("http://mock.test/payin", {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ paymentMethod: method, referenceId: body.referenceId });
    engine.close();
  });

  it("OPEN_FINANCE leaves the address out, as the spec's example does", () => {
    expect(samplePayin("OPEN_FINANCE").customer).not.toHaveProperty("address");
  });

  it("overrides replace fields and every sample gets a fresh referenceId", () => {
    const card = samplePayin("CREDIT_CARD", {
      amount: 2_500,
      card: { ...SAMPLE_CARD, number: "4000000000000002" },
    });
    expect(card).toMatchObject({ amount: 2_500, card: { number: "4000000000000002" } });
    expect(samplePayin("PIX").referenceId).not.toBe(samplePayin("PIX").referenceId);
    expect(samplePayout().referenceId).not.toBe(samplePayout().referenceId);
  });

  it("samplePayout() is a valid request to a key of the mock's directory", () => {
    expect(validate(PayoutCreateParams, samplePayout())).toMatchObject({ success: true });
  });
});
