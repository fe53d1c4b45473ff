import type { WebhookEvent } from "@paykit/webhooks";
import { signWebhook } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import { createWebhookApp } from "../src/app.js";

const SECRET = "whsec_aG9uby1lZGdlLWV4YW1wbGUtc2lnbmluZy1rZXkh";
const OLD_SECRET = "whsec_b2xkLXNlY3JldC1iZWZvcmUtdGhlLXJvdGF0aW9uIQ==";

const payoutBody = JSON.stringify({
  id: "po_01TEST",
  externalId: "E00000000202611220000abcdefghijk",
  status: "COMPLETED",
  amount: 5_000,
  currency: "BRL",
  pixKey: "payouts@example.com",
  pixKeyType: "EMAIL",
  referenceId: "payout-1",
  beneficiaryName: "Paykit Demo Recebedor",
  beneficiaryDocument: "26888074714",
  feeAmount: 100,
  netAmount: 4_900,
  failureCode: null,
  createdAt: "2026-01-01T12:00:00.000Z",
  updatedAt: "2026-01-01T12:00:02.000Z",
});

function setup() {
  const events: WebhookEvent[] = [];
  const app = createWebhookApp({ secret: [SECRET, OLD_SECRET], onEvent: (e) => void events.push(e) });
  const deliver = async (body: string, headers: Record<string, string>) =>
    app.request("/webhooks/paykit", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
    });
  return { app, events, deliver };
}

describe("the Hono webhook receiver (web-standard Request/Response)", () => {
  it.each([
    ["the current secret", SECRET],
    ["the previous secret, during a rotation", OLD_SECRET],
  ])("accepts a delivery signed with %s", async (_name, secret) => {
    const { events, deliver } = setup();
    const response = await deliver(payoutBody, await signWebhook(payoutBody, { secret }));
    expect(response.status).toBe(204);
    expect(events).toMatchObject([{ kind: "payout", id: "po_01TEST", data: { status: "COMPLETED" } }]);
  });

  it.each([
    [
      "a forged signature",
      async () => signWebhook(payoutBody, { secret: "whsec_Zm9yZ2VkLXNlY3JldC1mb3ItdGhlLXRlc3QtMzJi" }),
      "SIGNATURE_MISMATCH",
    ],
    ["no signature headers", async () => ({}), "MISSING_HEADERS"],
    [
      "a replayed delivery from an hour ago",
      async () =>
        signWebhook(payoutBody, { secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      "TIMESTAMP_OUT_OF_TOLERANCE",
    ],
  ])("refuses %s with 400 and its code", async (_name, headers, code) => {
    const { events, deliver } = setup();
    const response = await deliver(payoutBody, await headers());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code });
    expect(events).toEqual([]);
  });

  it("runs the handler once per webhook-id: a retried delivery gets 200 and changes nothing", async () => {
    const { events, deliver } = setup();
    const headers = await signWebhook(payoutBody, { secret: SECRET, webhookId: "msg_retry" });
    expect((await deliver(payoutBody, headers)).status).toBe(204);
    expect((await deliver(payoutBody, headers)).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it("answers 500 when the shop's handler fails, and handles the sender's retry", async () => {
    let fail = true;
    const events: WebhookEvent[] = [];
    const failures: unknown[] = [];
    const app = createWebhookApp({
      secret: SECRET,
      onError: (error) => failures.push(error),
      onEvent: (e) => {
        if (fail) throw new Error("database down");
        events.push(e);
      },
    });
    const headers = await signWebhook(payoutBody, { secret: SECRET, webhookId: "msg_fail" });
    const send = () => app.request("/webhooks/paykit", { method: "POST", body: payoutBody, headers });
    expect((await send()).status).toBe(500);
    expect(failures).toMatchObject([{ message: "database down" }]);
    fail = false;
    expect((await send()).status).toBe(204);
    expect(events).toHaveLength(1);
  });
});
