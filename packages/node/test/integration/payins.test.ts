import { isPendingThreeDS, parseBoletoLine, parseBrCode, payinFee } from "@paykit/contract";
import { describe, expect, it } from "vitest";
import { card } from "../support/fixtures.js";
import { startMock, TRANSPORTS } from "../support/mock.js";
import { cardPayin, pixPayin } from "../support/requests.js";

describe.each(TRANSPORTS)("payins over %s", (transport) => {
  it("PIX: the answer carries a valid BR Code for the amount", async () => {
    await using api = await startMock(transport);
    const payin = await api.paykit.payins.create(pixPayin({ amount: 12_345 }));
    expect(payin).toMatchObject({ paymentMethod: "PIX", status: "PENDING", amount: 12_345 });
    expect(payin.id).toMatch(/^pi_/);
    expect(parseBrCode(payin.pix.qrcode).amountCents).toBe(12_345);
  });

  it("BOLETO: the answer carries a digitable line encoding the amount, and the PDF URL", async () => {
    await using api = await startMock(transport);
    const payin = await api.paykit.payins.create({ ...pixPayin({ amount: 5_000 }), paymentMethod: "BOLETO" });
    expect(payin.boleto.barcode).toMatch(/^\d{47}$/);
    expect(parseBoletoLine(payin.boleto.barcode).amountCents).toBe(5_000);
    expect(() => new URL(payin.boleto.url)).not.toThrow();
  });

  it("OPEN_FINANCE: the answer carries the bank's authorization URL; no address needed", async () => {
    await using api = await startMock(transport);
    const { customer, ...rest } = pixPayin();
    const { address: _address, ...withoutAddress } = customer;
    const payin = await api.paykit.payins.create({
      ...rest,
      paymentMethod: "OPEN_FINANCE",
      customer: withoutAddress,
      bankId: "001",
    });
    expect(() => new URL(payin.openFinanceRedirectUrl)).not.toThrow();
  });

  it.each([
    ["4111111111111111", "APPROVED"],
    ["4000000000000002", "REFUSED"],
  ])("CREDIT_CARD %s is %s at once", async (number, status) => {
    await using api = await startMock(transport);
    const payin = await api.paykit.payins.create(cardPayin(number));
    expect(payin).toMatchObject({ paymentMethod: "CREDIT_CARD", status });
    expect(isPendingThreeDS(payin)).toBe(false);
  });

  it("CREDIT_CARD 4000000000003220 opens a post-order 3DS challenge with every field", async () => {
    await using api = await startMock(transport);
    const payin = await api.paykit.payins.create(cardPayin("4000000000003220"));
    expect(payin.status).toBe("PENDING_3DS");
    expect(isPendingThreeDS(payin)).toBe(true);
    expect(payin.threeDSecureSdkUrl).toMatch(/^https?:\/\//);
  });

  it("retrieve: the record after the PIX is paid is APPROVED with its net amount", async () => {
    await using api = await startMock(transport);
    const created = await api.paykit.payins.create(pixPayin({ amount: 10_000 }));
    expect(await api.paykit.payins.retrieve(created.id)).toMatchObject({
      status: "PENDING",
      netAmount: null,
      currency: "BRL",
    });
    await api.control.payPayin(created.id);
    const paid = await api.paykit.payins.retrieve(created.id);
    expect(paid).toMatchObject({
      id: created.id,
      status: "APPROVED",
      netAmount: 10_000 - payinFee("PIX", 10_000),
    });
    expect(JSON.stringify(paid)).not.toContain(card.number);
  });

  it.each([
    ["PAYER_LIMIT_REJECTED", "4000000000009995", "PaymentRefusedError", 400],
    ["INVALID_CVV", "4000000000000127", "PaymentRefusedError", 400],
    ["REJECTED_BY_RISK", "4100000000000019", "PaymentRefusedError", 400],
    ["PROVIDER_ERROR", "4000000000000119", "ProviderError", 502],
  ])("a card payin answered %s is a %s", async (code, number, name, status) => {
    await using api = await startMock(transport);
    await expect(api.paykit.payins.create(cardPayin(number))).rejects.toMatchObject({ name, code, status });
  });

  it("a customer e-mail @risk.test is REJECTED_BY_RISK for any method", async () => {
    await using api = await startMock(transport);
    const request = pixPayin();
    await expect(
      api.paykit.payins.create({ ...request, customer: { ...request.customer, email: "fraud@risk.test" } }),
    ).rejects.toMatchObject({ name: "PaymentRefusedError", code: "REJECTED_BY_RISK" });
  });

  it("PROVIDER_ERROR on a payin is not retried", async () => {
    await using api = await startMock(transport);
    let posts = 0;
    const paykit = api.client({ hooks: { onRequest: (e) => void (e.method === "POST" && posts++) } });
    await expect(paykit.payins.create(cardPayin("4000000000000119"))).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
    expect(posts).toBe(1);
  });

  it("an unknown payin is a NotFoundError", async () => {
    await using api = await startMock(transport);
    await expect(api.paykit.payins.retrieve("pi_doesnotexist")).rejects.toMatchObject({
      name: "NotFoundError",
      status: 404,
    });
  });

  it("the service's own INVALID_DATA (validation off) lists every path", async () => {
    await using api = await startMock(transport);
    const request = pixPayin();
    const paykit = api.client({ validateRequests: false });
    await expect(
      paykit.payins.create({
        ...request,
        customer: { ...request.customer, document: "11111111111" },
        items: [],
      }),
    ).rejects.toMatchObject({
      name: "InvalidRequestError",
      code: "INVALID_DATA",
      details: expect.arrayContaining([
        expect.objectContaining({ path: "customer.document" }),
        expect.objectContaining({ path: "items" }),
      ]),
    });
  });
});

describe.each(TRANSPORTS)("account errors over %s", (transport) => {
  it("wrong keys are an AuthenticationError", async () => {
    await using api = await startMock(transport);
    const paykit = api.client({ secretKey: "sk_test_wrong" });
    await expect(paykit.payins.retrieve("pi_x")).rejects.toMatchObject({
      name: "AuthenticationError",
      status: 401,
      code: "UNAUTHORIZED",
    });
  });

  it.each([
    ["KYC_NOT_APPROVED", { kycApproved: false }, pixPayin()],
    ["CREDIT_CARD_NOT_ENABLED", { creditCardEnabled: false }, cardPayin()],
  ])("%s is a PermissionError", async (code, settings, request) => {
    await using api = await startMock(transport);
    const keys = await api.control.createAccount({ ...settings, balance: 0 });
    const paykit = api.client({ publicKey: keys.publicKey, secretKey: keys.secretKey });
    await expect(paykit.payins.create(request)).rejects.toMatchObject({
      name: "PermissionError",
      status: 403,
      code,
    });
  });
});
