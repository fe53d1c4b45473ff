import { createMockServer, type MockServer, runWebhookDoctor } from "@paykit/mock-server";
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
