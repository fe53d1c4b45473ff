import { describe, expect, it } from "vitest";
import { parseWebhookRequest } from "../src/index.js";
import { signWebhook } from "../src/testing.js";
import { payoutBody, SECRET } from "./fixtures.js";

const body = JSON.stringify(payoutBody);

function request(headers: Record<string, string> = {}): Request {
  return new Request("https://merchant.example/webhooks/paykit", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
}

describe("parseWebhookRequest", () => {
  it("verifies a signed web Request when a secret is given", async () => {
    const headers = await signWebhook(body, { secret: SECRET, webhookId: "msg_9" });
    await expect(parseWebhookRequest(request(headers), { secret: SECRET })).resolves.toMatchObject({
      kind: "payout",
      id: payoutBody.id,
      webhookId: "msg_9",
    });
  });

  it("refuses an unsigned Request when a secret is given", async () => {
    await expect(parseWebhookRequest(request(), { secret: SECRET })).rejects.toMatchObject({
      code: "MISSING_HEADERS",
    });
  });

  it("parses without verifying only when asked by name (allowUnsigned), keeping the webhook id", async () => {
    await expect(
      parseWebhookRequest(request({ "webhook-id": "msg_2" }), { allowUnsigned: true }),
    ).resolves.toMatchObject({ kind: "payout", webhookId: "msg_2" });
  });

  it("diagnoses a body already consumed by a parser", async () => {
    const consumed = request();
    await consumed.json();
    await expect(parseWebhookRequest(consumed, { secret: SECRET })).rejects.toMatchObject({
      name: "WebhookParseError",
      code: "BODY_ALREADY_READ",
    });
  });
});
