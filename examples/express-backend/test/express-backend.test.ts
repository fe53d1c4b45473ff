import type { AddressInfo } from "node:net";
import { createMockServer, SAMPLE_CUSTOMER } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import type { WebhookEvent } from "@paykit/webhooks";
import { signWebhook } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";

const SECRET = "whsec_ZXhwcmVzcy1leGFtcGxlLXNpZ25pbmcta2V5LTMyYg==";
// The mock package ships valid sample data for merchants' tests (a CPF, phone and CEP it accepts).
const customer = SAMPLE_CUSTOMER;

async function start() {
  const mock = await createMockServer({ autoAdvance: false });
  const account = await mock.control.createAccount({ webhookSecret: SECRET, balance: 50_000 });
  const paykit = new Paykit({
    publicKey: account.publicKey,
    secretKey: account.secretKey,
    baseUrl: mock.url,
  });
  const events: WebhookEvent[] = [];
  const app = createApp({ paykit, webhookSecret: SECRET, onEvent: (e) => void events.push(e) });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    mock,
    url,
    events,
    post: (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await mock.close();
    },
  };
}

describe("the Express merchant backend", () => {
  it("creates a PIX payin and receives its signed webhook through express.raw", async () => {
    await using shop = await start();
    const created = await shop.post("/payins", {
      paymentMethod: "PIX",
      amount: 2_500,
      referenceId: "order-1",
      isPhysicalProduct: false,
      payerIp: "177.10.20.30",
      customer,
      items: [{ title: "E-book", quantity: 1, unitPrice: 2_500 }],
      webhookUrl: `${shop.url}/webhooks/paykit`,
    });
    expect(created.status).toBe(201);
    const payin = await created.json();
    expect(payin.pix.qrcode).toMatch(/^000201/);

    await shop.mock.control.payPayin(payin.id);
    await expect
      .poll(() => shop.events.map((e) => `${e.kind} ${e.id} ${e.data.status}`))
      .toEqual([`payin ${payin.id} APPROVED`]);
    // The mock records the attempt once the 204 reaches it, a moment after the handler ran.
    await expect
      .poll(async () => (await shop.mock.control.webhooks())[0])
      .toMatchObject({ state: "delivered", attempts: [{ statusCode: 204 }] });
  });

  it("answers 400 to a forged delivery and 200 to a duplicate, running the handler once", async () => {
    await using shop = await start();
    const body = JSON.stringify({
      id: "pi_01TEST",
      status: "APPROVED",
      paymentMethod: "PIX",
      amount: 2_500,
      referenceId: "order-2",
      customer: { name: "Maria Santos", email: "maria.santos@example.com" },
      updatedAt: new Date().toISOString(),
    });
    const send = async (secret: string) =>
      fetch(`${shop.url}/webhooks/paykit`, {
        method: "POST",
        // signWebhook returns every header a receiver needs, content type included.
        headers: await signWebhook(body, { secret, webhookId: "msg_1" }),
        body,
      });
    const forged = await send("whsec_Zm9yZ2VkLXNlY3JldC1mb3ItdGhlLXRlc3QtMzJi");
    expect(forged.status).toBe(400);
    expect((await forged.json()).code).toBe("SIGNATURE_MISMATCH");
    expect((await send(SECRET)).status).toBe(204);
    expect((await send(SECRET)).status).toBe(200);
    expect(shop.events).toHaveLength(1);
  });

  it("creates and lists payouts, passing the service's errors through with their code", async () => {
    await using shop = await start();
    const payout = await shop.post("/payouts", {
      amount: 10_000,
      pixKey: "payouts@example.com",
      pixKeyType: "EMAIL",
      referenceId: "payout-1",
    });
    expect(payout.status).toBe(201);
    expect(await payout.json()).toMatchObject({ status: "PENDING", referenceId: "payout-1" });

    const tooMuch = await shop.post("/payouts", {
      amount: 40_001,
      pixKey: "payouts@example.com",
      pixKeyType: "EMAIL",
      referenceId: "payout-2",
    });
    expect(tooMuch.status).toBe(400);
    expect((await tooMuch.json()).code).toBe("INSUFFICIENT_FUNDS");

    const list = await fetch(`${shop.url}/payouts?status=PENDING&limit=5`).then((r) => r.json());
    expect(list.meta).toEqual({ total: 1, page: 1, limit: 5, totalPages: 1 });
  });
});
