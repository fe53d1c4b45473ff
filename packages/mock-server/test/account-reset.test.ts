// `POST /_mock/accounts/{id}/reset` (issue 15, isolation for teams): one account back to how it was
// created, its id, API keys and webhook secret kept, and every other account untouched. Over every
// transport; over node:http the control API is reached over HTTP.
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { samplePayin, samplePayout } from "../src/index.js";
import { warmStore } from "./durable-harness.js";
import { basic, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

const json = async (r: Response | "dropped") => {
  if (r === "dropped") throw new Error("dropped");
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

describe.each(TRANSPORTS_AND_STORES)("resetting one account, over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  it("clears its payins, payouts, deliveries and faults, restores its settings and balance, keeps its keys", async () => {
    const delivered: string[] = [];
    const mock = await startHarness(transport, {
      autoAdvance: false,
      fetch: async (_url, init) => {
        delivered.push(String(init.body));
        return new Response(null, { status: 204 });
      },
    });
    try {
      const secret = "whsec_cmVzZXQtdGVzdC1zZWNyZXQtMzItYnl0ZXMh";
      const a = await mock.control.createAccount({ balance: 100_000, webhookSecret: secret });
      const b = await mock.control.createAccount({ balance: 50_000 });
      const post = (keys: typeof a, path: string, body: unknown) =>
        mock.send(path, {
          method: "POST",
          headers: { authorization: basic(keys), "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const payin = await json(
        await post(a, "/payin", samplePayin("PIX", { webhookUrl: "https://a.test/hook" })),
      );
      await mock.control.payPayin(payin.body.id as string);
      const payout = samplePayout({ referenceId: "withdraw-1", webhookUrl: "https://a.test/hook" });
      expect((await json(await post(a, "/payout", payout))).status).toBe(201);
      await mock.control.updateAccount(a.accountId, { kycApproved: false, limits: { dayMaxCents: 5_000 } });
      await mock.control.addFault({ path: "/payout", status: 500, times: 9, accountId: a.accountId });
      const other = await json(
        await post(b, "/payin", samplePayin("PIX", { webhookUrl: "https://b.test/hook" })),
      );
      await mock.control.payPayin(other.body.id as string);
      await mock.control.flushWebhooks();
      const bLog = await mock.control.webhooks(b.accountId);

      const view = await mock.control.resetAccount(a.accountId);
      expect(view).toMatchObject({
        accountId: a.accountId,
        publicKey: a.publicKey,
        kycApproved: true,
        webhookSigned: true,
        balance: { available: 100_000, reserved: 0, pending: 0 },
      });
      expect(view.limits).toEqual({ nightMaxCents: 100_000, dayMaxCents: 10_000_000 });
      expect(await mock.control.payins(a.accountId)).toEqual([]);
      expect(await mock.control.payouts(a.accountId)).toEqual([]);
      expect(await mock.control.webhooks(a.accountId)).toEqual([]);
      expect(await mock.control.faults(a.accountId)).toEqual([]);
      // the same keys work, the old records are gone, and the referenceId is free again
      const list = await json(await mock.send("/payout", { headers: { authorization: basic(a) } }));
      expect(list).toMatchObject({ status: 200, body: { meta: { total: 0 } } });
      const gone = await json(
        await mock.send(`/payin/${payin.body.id}`, { headers: { authorization: basic(a) } }),
      );
      expect(gone.status).toBe(404);
      expect((await json(await post(a, "/payout", payout))).status).toBe(201);
      // the other account is untouched
      expect((await mock.control.payins(b.accountId)).map((p) => p.id)).toEqual([other.body.id]);
      expect(await mock.control.webhooks(b.accountId)).toEqual(bLog);
      expect((await mock.control.getAccount(b.accountId)).balance.available).toBeGreaterThan(50_000);
    } finally {
      await mock.close();
    }
  });

  it("work scheduled for its old payouts does nothing after the reset", async () => {
    const mock = await startHarness(transport, { autoAdvance: true, advanceIntervalMs: 20 });
    try {
      const a = await mock.control.createAccount({ balance: 100_000 });
      const created = await mock.send("/payout", {
        method: "POST",
        headers: { authorization: basic(a), "content-type": "application/json" },
        body: JSON.stringify(samplePayout({ webhookUrl: "https://a.test/hook" })),
      });
      expect(created === "dropped" ? created : created.status).toBe(201);
      await mock.control.resetAccount(a.accountId);
      await sleep(150); // several advance intervals
      expect(await mock.control.webhooks(a.accountId)).toEqual([]);
      expect((await mock.control.getAccount(a.accountId)).balance).toEqual({
        available: 100_000,
        reserved: 0,
        pending: 0,
      });
    } finally {
      await mock.close();
    }
  });

  it("answers 404 for an account that does not exist", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      await expect(mock.control.resetAccount("acct_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    } finally {
      await mock.close();
    }
  });
});
