import { runWebhookDoctor } from "@paykit/mock-server";
import { describe, expect, it } from "vitest";
import { RECIPE_RECEIVERS } from "./receivers.js";

const SECRET = "whsec_ZG9jdG9yLXJlY2lwZXMtc2lnbmluZy1rZXktMzJi";

describe("the webhook doctor against every recipe in examples/", () => {
  it.each(RECIPE_RECEIVERS)("$name passes every required case", async (recipe) => {
    const receiver = await recipe.start(SECRET);
    try {
      const report = await runWebhookDoctor({ url: receiver.url, secret: SECRET, fetch: receiver.fetch });
      expect(report.cases.filter((c) => c.required && !c.passed)).toEqual([]);
      expect(report.ok).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
