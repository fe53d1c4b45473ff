// --max-records (issue 10): a mock left running for weeks keeps at most N payins and N payouts per
// account, dropping the oldest records in a final status first; pending records are never dropped.
import { describe, expect, it } from "vitest";
import { apiOf, payoutBody, pixPayin, startHarness } from "./fixtures.js";

describe("the retention limit (maxRecords)", () => {
  it("drops the oldest final payins first and keeps every pending one", async () => {
    const h = await startHarness("engine", { autoAdvance: false, maxRecords: 5 });
    try {
      const api = apiOf(h);
      const ids: string[] = [];
      for (let i = 0; i < 8; i += 1) ids.push((await api.post("/payin", pixPayin())).body.id);
      // Eight pending payins: nothing is final, so nothing is dropped.
      expect((await h.control.payins(h.account.accountId, { limit: 1000 })).length).toBe(8);
      for (const id of ids.slice(0, 6)) await h.control.payPayin(id);
      ids.push((await api.post("/payin", pixPayin())).body.id);
      const kept = (await h.control.payins(h.account.accountId, { limit: 1000 })).map((p) => p.id);
      expect(kept).toHaveLength(5);
      // The two pending ones and the newest stay; of the paid ones only the newest two remain.
      expect(new Set(kept)).toEqual(new Set([ids[4], ids[5], ids[6], ids[7], ids[8]]));
      expect((await api.get(`/payin/${ids[0]}`)).status).toBe(404);
      expect((await api.get(`/payin/${ids[5]}`)).body.status).toBe("APPROVED");
      // The balance keeps the money of dropped payins.
      const { balance } = await h.control.getAccount(h.account.accountId);
      expect(balance.available).toBe(1_000_000 + 6 * (10_000 - 99));
    } finally {
      await h.close();
    }
  });

  it("drops the oldest final payouts; lists and totals agree; a dropped referenceId may be used again", async () => {
    const h = await startHarness("engine", { autoAdvance: false, maxRecords: 3 });
    try {
      await h.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
      const api = apiOf(h);
      const first = payoutBody({ pixKey: "reject-now@bank.test" });
      expect((await api.post("/payout", first)).status).toBe(502);
      for (let i = 0; i < 4; i += 1)
        await api.post("/payout", payoutBody({ pixKey: "reject-now@bank.test" }));
      const list = await api.get("/payout?limit=100");
      expect(list.body.meta.total).toBe(3);
      expect(list.body.data).toHaveLength(3);
      expect((await api.get(`/payout?referenceId=${first.referenceId}`)).body.data).toEqual([]);
      expect((await api.post("/payout", { ...first, pixKey: "payouts@example.com" })).status).toBe(201);
    } finally {
      await h.close();
    }
  });

  it("drops COMPLETED payouts too, and the webhook deliveries of every dropped record", async () => {
    const h = await startHarness("engine", {
      autoAdvance: false,
      maxRecords: 2,
      fetch: async () => new Response(null, { status: 204 }),
    });
    try {
      const api = apiOf(h);
      const webhookUrl = "https://merchant.example/hooks";
      const payins: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        payins.push((await api.post("/payin", pixPayin({ webhookUrl }))).body.id);
        await h.control.payPayin(payins[i]!);
      }
      const payouts: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        payouts.push((await api.post("/payout", payoutBody({ webhookUrl }))).body.id);
        await h.control.advancePayout(payouts[i]!);
        await h.control.advancePayout(payouts[i]!);
      }
      expect((await h.control.payouts(h.account.accountId)).map((p) => p.status)).toEqual([
        "COMPLETED",
        "COMPLETED",
      ]);
      const reported = new Set((await h.control.webhooks(h.account.accountId)).map((d) => d.resourceId));
      expect(reported).toEqual(new Set([...payins.slice(2), ...payouts.slice(2)]));
      expect((await api.get(`/payout/${payouts[0]}`)).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});
