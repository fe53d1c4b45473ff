// A receiver needs @paykit/node alone (docs/webhooks-recipes.md imports nothing else): the webhooks
// package's deduplicator, order guard, guards and readers and the contract's status guards are re-exported, as the
// same classes and functions, so an `instanceof` holds whichever package a value came from.
import * as contract from "@paykit/contract";
import * as webhooks from "@paykit/webhooks";
import { signWebhook } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import * as node from "../../src/index.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const BODY = JSON.stringify({
  id: "pi_1",
  status: "APPROVED",
  paymentMethod: "PIX",
  amount: 1990,
  referenceId: "order-1",
  customer: { name: "Maria", email: "maria@example.com" },
  updatedAt: new Date().toISOString(),
});

describe("@paykit/node re-exports what a webhook receiver and a merchant's types use", () => {
  it.each([
    ["WebhookDeduplicator", node.WebhookDeduplicator, webhooks.WebhookDeduplicator],
    ["MemoryDedupStore", node.MemoryDedupStore, webhooks.MemoryDedupStore],
    ["webhookDedupKey", node.webhookDedupKey, webhooks.webhookDedupKey],
    ["WebhookOrderGuard", node.WebhookOrderGuard, webhooks.WebhookOrderGuard],
    ["MemoryOrderStore", node.MemoryOrderStore, webhooks.MemoryOrderStore],
    ["webhookOrderVerdict", node.webhookOrderVerdict, webhooks.webhookOrderVerdict],
    ["webhookOrderClaim", node.webhookOrderClaim, webhooks.webhookOrderClaim],
    ["webhookOrderKey", node.webhookOrderKey, webhooks.webhookOrderKey],
    ["orderClaimOf", node.orderClaimOf, webhooks.orderClaimOf],
    ["isWebhookParseError", node.isWebhookParseError, webhooks.isWebhookParseError],
    ["isWebhookVerificationError", node.isWebhookVerificationError, webhooks.isWebhookVerificationError],
    ["WebhookVerificationError", node.WebhookVerificationError, webhooks.WebhookVerificationError],
    ["isKnownPayinStatus", node.isKnownPayinStatus, contract.isKnownPayinStatus],
    ["isKnownPayoutStatus", node.isKnownPayoutStatus, contract.isKnownPayoutStatus],
  ])("%s is the same value as in its own package", (_, fromNode, original) => {
    expect(fromNode).toBe(original);
  });

  it("parseWebhookRequest and verifyWebhook read a signed delivery like @paykit/webhooks' own", async () => {
    const headers = await signWebhook(BODY, { secret: SECRET });
    const request = () => new Request("https://shop.test/webhooks", { method: "POST", headers, body: BODY });
    const expected = await webhooks.parseWebhookRequest(request(), { secret: SECRET });
    expect(await node.parseWebhookRequest(request(), { secret: SECRET })).toEqual(expected);
    expect(await node.verifyWebhook(BODY, headers, SECRET)).toEqual(expected);
    expect(expected).toMatchObject({ kind: "payin", id: "pi_1" });
  });

  it("their failures are the same classes, with the same codes", async () => {
    const headers = await signWebhook(BODY, { secret: SECRET });
    const forged = await node
      .verifyWebhook(BODY.replace("1990", "1"), headers, SECRET)
      .catch((e: unknown) => e);
    expect(forged).toBeInstanceOf(webhooks.WebhookVerificationError);
    expect(forged).toMatchObject({ code: "SIGNATURE_MISMATCH" });
    const read = new Request("https://shop.test/webhooks", { method: "POST", headers, body: BODY });
    await read.text();
    const reused = await node.parseWebhookRequest(read, { secret: SECRET }).catch((e: unknown) => e);
    expect(node.isWebhookParseError(reused)).toBe(true);
    expect(reused).toMatchObject({ code: "BODY_ALREADY_READ" });
  });
});
