import { createPaykitMock, SAMPLE_CUSTOMER } from "@paykit/mock-server/msw";
import { Paykit } from "@paykit/node";
import { parseWebhookRequest, type WebhookEvent } from "@paykit/webhooks";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isOrderPaid, type Order, payByCard, startPixCheckout } from "../src/checkout.js";

// The merchant's tests never open a port: msw answers the client's fetch with the mock's engine.
const BASE_URL = "https://api.paykit.test";
const mock = createPaykitMock({ baseUrl: BASE_URL, autoAdvance: false });
const WEBHOOK_URL = "https://shop.example/webhooks/paykit";
const WEBHOOK_SECRET = "whsec_dml0ZXN0LW1zdy1leGFtcGxlLXNpZ25pbmcta2V5IQ==";
const received: WebhookEvent[] = [];
// The mock's webhook deliveries go through fetch too, so msw hands them to the shop's own endpoint
// logic here: verified with the account's secret, exactly as in production.
const webhookEndpoint = http.post(WEBHOOK_URL, async ({ request }) => {
  received.push(await parseWebhookRequest(request, { secret: WEBHOOK_SECRET }));
  return new HttpResponse(null, { status: 204 });
});
const server = setupServer(...mock.handlers, webhookEndpoint);
let paykit: Paykit;

beforeAll(() => {
  server.listen({ onUnhandledRequest: "error" });
  // Created after listen(): msw patches globalThis.fetch there, and the client binds fetch when built.
  paykit = new Paykit({
    publicKey: mock.account.publicKey,
    secretKey: mock.account.secretKey,
    baseUrl: BASE_URL,
    maxRetries: 0,
  });
});
beforeEach(async () => {
  received.length = 0;
  await mock.control.updateAccount(mock.account.accountId, { webhookSecret: WEBHOOK_SECRET });
});
afterEach(async () => {
  server.resetHandlers();
  await mock.control.reset();
});
afterAll(() => {
  server.close();
  mock.close();
});

const order: Order = {
  id: "order-1001",
  customerIp: "177.10.20.30",
  customer: SAMPLE_CUSTOMER, // valid sample data shipped by the mock package
  items: [
    { title: "Camiseta", quantity: 2, unitPrice: 4_990 },
    { title: "Caneca", quantity: 1, unitPrice: 3_500 },
  ],
};

const card = (number: string) => ({
  holderName: "MARIA SANTOS",
  number,
  expirationMonth: "12",
  expirationYear: String(new Date().getFullYear() + 2),
  cvv: "123",
});

describe("the shop's checkout against the Paykit mock (msw)", () => {
  it("charges the order total by PIX and sees it paid once the customer pays", async () => {
    const checkout = await startPixCheckout(paykit, order, WEBHOOK_URL);
    expect(checkout.amount).toBe(13_480);
    expect(checkout.brCode).toMatch(/^000201/);
    expect(await isOrderPaid(paykit, checkout.payinId)).toBe(false);

    await mock.control.payPayin(checkout.payinId);
    expect(await isOrderPaid(paykit, checkout.payinId)).toBe(true);
    await expect
      .poll(() => received)
      .toMatchObject([
        {
          kind: "payin",
          id: checkout.payinId,
          data: { status: "APPROVED", amount: 13_480, referenceId: "order-1001" },
        },
      ]);
  });

  it.each([
    ["an approved card", "4111111111111111", { paid: true }],
    ["a declined card", "4000000000000002", { paid: false, reason: "declined" }],
    [
      "a card over its limit",
      "4000000000009995",
      { paid: false, reason: "try-another-card", message: "PAYER_LIMIT_REJECTED" },
    ],
    ["a wrong CVV", "4000000000000127", { paid: false, reason: "try-another-card", message: "INVALID_CVV" }],
    [
      "an acquirer failure",
      "4000000000000119",
      { paid: false, reason: "try-again-later", message: "PROVIDER_ERROR" },
    ],
  ])("shows the right outcome for %s", async (_name, number, outcome) => {
    expect(await payByCard(paykit, order, card(number))).toMatchObject(outcome);
  });

  it("copes with the service being down: a 503 fault reaches the shop as an error it can show", async () => {
    await mock.control.addFault({ method: "POST", path: "/payin", status: 503, code: "INTERNAL_ERROR" });
    await expect(startPixCheckout(paykit, order, WEBHOOK_URL)).rejects.toMatchObject({
      name: "PaykitApiError",
      status: 503,
    });
  });
});
