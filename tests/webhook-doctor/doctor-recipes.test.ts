import type { AddressInfo } from "node:net";
import { createMockServer, type MockServer, runWebhookDoctor, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { verifyWebhook } from "@paykit/webhooks";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfirmingApi, RECIPE_RECEIVERS } from "./receivers.js";

const SECRET = "whsec_ZG9jdG9yLXJlY2lwZXMtc2lnbmluZy1rZXktMzJi";

let mock: MockServer;
let api: ConfirmingApi;
beforeAll(async () => {
  mock = await createMockServer({ autoAdvance: false });
  const keys = await mock.control.createAccount({ webhookSecret: SECRET });
  api = { baseUrl: mock.url, publicKey: keys.publicKey, secretKey: keys.secretKey };
});
afterAll(() => mock?.close());

describe("the webhook doctor against every recipe in examples/", () => {
  it.each(RECIPE_RECEIVERS)("$name passes every required case", async (recipe) => {
    const receiver = await recipe.start(SECRET, api);
    try {
      const report = await runWebhookDoctor({ url: receiver.url, secret: SECRET, fetch: receiver.fetch });
      expect(report.cases.filter((c) => c.required && !c.passed)).toEqual([]);
      expect(report.ok).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

// docs/webhooks.md's first warning, as a newcomer writes it: express.json() on the route, then
// verifyWebhook(JSON.stringify(req.body)). The doctor fails it and names the mistake, and the mock's own
// deliveries fail it too (docs/decisions/webhook-body-bytes.md), so it cannot pass the tests and break
// in production.
describe("a receiver that verifies the body parsed and written again", () => {
  async function reserializing(): Promise<{ url: string; answers: number[]; close(): Promise<void> }> {
    const answers: number[] = [];
    const app = express();
    app.post("/webhooks/paykit", express.json(), async (req, res) => {
      try {
        await verifyWebhook(JSON.stringify(req.body), req.headers as Record<string, string>, SECRET);
      } catch {
        answers.push(400);
        res.status(400).send("bad signature");
        return;
      }
      answers.push(204);
      res.status(204).end();
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/paykit`,
      answers,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it("fails the doctor, the fix naming JSON.stringify(req.body) and express.raw", async () => {
    const receiver = await reserializing();
    try {
      const report = await runWebhookDoctor({ url: receiver.url, secret: SECRET });
      expect(report.ok).toBe(false);
      const failing = report.cases.filter((c) => c.required && !c.passed).map((c) => c.name);
      expect(failing).toEqual(expect.arrayContaining(["spaced-body", "escaped-unicode"]));
      expect(report.cases.find((c) => c.name === "valid-payin")?.passed).toBe(true);
      const fix = report.cases.find((c) => c.name === "spaced-body")?.fix ?? "";
      expect(fix).toContain("JSON.stringify(req.body) after express.json()");
      expect(fix).toContain('express.raw({ type: "application/json" })');
    } finally {
      await receiver.close();
    }
  });

  it("refuses the mock's own delivery, as it would a production one", async () => {
    const receiver = await reserializing();
    try {
      const keys = await mock.control.createAccount({ webhookSecret: SECRET });
      const paykit = new Paykit({ ...keys, baseUrl: mock.url });
      const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl: receiver.url }));
      await mock.control.payPayin(payin.id, { awaitWebhooks: true });
      expect(receiver.answers).toEqual([400]);
      const [delivery] = await mock.control.webhooks(keys.accountId, { resourceId: payin.id });
      expect(delivery?.attempts.map((attempt) => attempt.statusCode)).toEqual([400]);
    } finally {
      await receiver.close();
    }
  });
});
