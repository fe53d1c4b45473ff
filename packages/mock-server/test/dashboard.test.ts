import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { warmStore } from "./durable-harness.js";
import {
  apiOf,
  cardPayin,
  type Harness,
  openFinancePayin,
  payoutBody,
  pixPayin,
  startHarness,
  TRANSPORTS_AND_STORES,
} from "./fixtures.js";

const T0 = "2030-03-12T17:00:00.000Z";

/**
 * Checks a status history against `[status, ms after T0]` steps. The mock clock keeps moving with
 * real time after it was set, so each time may be later than the moves made by hand, never earlier.
 */
function expectHistory(history: { status: string; at: string }[] | undefined, steps: [string, number][]) {
  expect(history?.map((change) => change.status)).toEqual(steps.map(([status]) => status));
  history?.forEach((change, i) => {
    const offset = Date.parse(change.at) - Date.parse(T0);
    expect(offset).toBeGreaterThanOrEqual(steps[i]![1]);
    expect(offset).toBeLessThan(steps[i]![1] + 30_000);
  });
}

// The merchant dashboard and the control lists it reads, over the same three transports as the
// scenario suite (the dashboard's manual approval: docs/decisions/payout-statuses.md).
describe.each(TRANSPORTS_AND_STORES)("the dashboard and its control lists over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  let h: Harness;
  let api: ReturnType<typeof apiOf>;
  beforeEach(async () => {
    h = await startHarness(transport, { autoAdvance: false });
    api = apiOf(h);
    // A fixed daytime moment; the clock is then moved by hand so every history time is exact.
    await h.control.setClock({ now: T0 });
  });
  afterEach(() => h.close());

  async function getJson(path: string) {
    const res = (await h.send(path)) as Response;
    return { status: res.status, body: await res.json() };
  }

  it("serves GET /_mock/dashboard as HTML that reads the control API", async () => {
    const res = (await h.send("/_mock/dashboard")) as Response;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("Paykit mock · dashboard");
    expect((await h.send("/_mock/dashboard", { method: "POST" })) as Response).toMatchObject({ status: 405 });
  });

  it("lists every account with settings and balance, oldest first", async () => {
    const merchant = await h.control.createAccount({ payoutApproval: "manual", balance: 5_000 });
    const accounts = await h.control.accounts();
    expect(accounts.map((a) => a.accountId)).toEqual([h.account.accountId, merchant.accountId]);
    expect(accounts[1]).toMatchObject({
      publicKey: merchant.publicKey,
      payoutApproval: "manual",
      balance: { available: 5_000, reserved: 0, pending: 0 },
    });
    expect(JSON.stringify(accounts)).not.toContain(merchant.secretKey);
    const route = await getJson("/_mock/accounts");
    expect(route.status).toBe(200);
    expect(route.body.data).toEqual(accounts);
  });

  it("lists payins newest first with account and status history on the mock clock", async () => {
    const first = await api.post("/payin", pixPayin({ amount: 1_500 }));
    await h.control.setClock({ advanceMs: 60_000 });
    const second = await api.post("/payin", openFinancePayin());
    await h.control.setClock({ advanceMs: 60_000 });
    await h.control.payPayin(first.body.id);
    await h.control.setClock({ advanceMs: 60_000 });
    await h.control.authorizePayin(second.body.id, false);

    const listed = await h.control.payins(h.account.accountId);
    expect(listed.map((p) => p.id)).toEqual([second.body.id, first.body.id]);
    expect(listed[1]).toMatchObject({
      id: first.body.id,
      accountId: h.account.accountId,
      status: "APPROVED",
      amount: 1_500,
      netAmount: expect.any(Number),
    });
    expectHistory(listed[1]?.statusHistory, [
      ["PENDING", 0],
      ["APPROVED", 120_000],
    ]);
    expect(listed[1]?.statusHistory[0]?.at).toBe(listed[1]?.createdAt);
    expect(listed[1]?.statusHistory[1]?.at).toBe(listed[1]?.updatedAt);
    expectHistory(listed[0]?.statusHistory, [
      ["PENDING", 60_000],
      ["REFUSED", 180_000],
    ]);
    const route = await getJson(`/_mock/payins?accountId=${h.account.accountId}`);
    expect(route).toEqual({ status: 200, body: { data: listed, nextCursor: null } });
  });

  it.each([
    ["a card approved at creation", "4111111111111111", ["APPROVED"]],
    ["a refused card", "4000000000000002", ["REFUSED"]],
    ["a card waiting for 3DS", "4000000000003220", ["PENDING_3DS"]],
  ])("starts the history of %s with its creation status", async (_, number, history) => {
    const created = await api.post("/payin", cardPayin(number));
    const [listed] = await h.control.payins(h.account.accountId, { limit: 1 });
    expect(listed?.id).toBe(created.body.id);
    expect(listed?.statusHistory.map((s) => s.status)).toEqual(history);
    // Only brand and last four are kept, so the list cannot echo the number either.
    expect(JSON.stringify(listed)).not.toContain(number);
  });

  it("lists payouts with the manual approval's whole history", async () => {
    const merchant = await h.control.createAccount({ payoutApproval: "manual", balance: 100_000 });
    const created = await apiOf(h, merchant).post("/payout", payoutBody({ amount: 12_345 }));
    expect(created.body.status).toBe("AWAITING_APPROVAL");
    await h.control.setClock({ advanceMs: 1_000 });
    await h.control.approvePayout(created.body.id);
    await h.control.setClock({ advanceMs: 1_000 });
    await h.control.advancePayout(created.body.id);
    await h.control.setClock({ advanceMs: 1_000 });
    await h.control.advancePayout(created.body.id);

    const [payout] = await h.control.payouts(merchant.accountId);
    expect(payout).toMatchObject({
      id: created.body.id,
      accountId: merchant.accountId,
      status: "COMPLETED",
      feeAmount: 100,
    });
    expectHistory(payout?.statusHistory, [
      ["AWAITING_APPROVAL", 0],
      ["APPROVED", 1_000],
      ["PROCESSING", 2_000],
      ["COMPLETED", 3_000],
    ]);
    const route = await getJson(`/_mock/payouts?accountId=${merchant.accountId}`);
    expect(route.body.data).toEqual([payout]);
  });

  it("merges every account's payouts newest first when no account is given", async () => {
    const merchant = await h.control.createAccount({ balance: 100_000 });
    const a = await api.post("/payout", payoutBody());
    await h.control.setClock({ advanceMs: 10 });
    const b = await apiOf(h, merchant).post("/payout", payoutBody());
    await h.control.setClock({ advanceMs: 10 });
    const c = await api.post("/payout", payoutBody());
    const all = await h.control.payouts();
    expect(all.map((p) => [p.id, p.accountId])).toEqual([
      [c.body.id, h.account.accountId],
      [b.body.id, merchant.accountId],
      [a.body.id, h.account.accountId],
    ]);
    const route = await getJson("/_mock/payouts?accountId=&limit=2");
    expect(route.body.data.map((p: { id: string }) => p.id)).toEqual([c.body.id, b.body.id]);
  });

  it("bounds a list: 100 newest by default, `limit` up to 1000", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push((await api.post("/payin", pixPayin())).body.id);
    const newestFirst = ids.reverse();
    const page = await h.control.payins();
    expect(page).toHaveLength(100);
    expect(page.map((p) => p.id)).toEqual(newestFirst.slice(0, 100));
    expect((await h.control.payins(undefined, { limit: 1000 })).map((p) => p.id)).toEqual(newestFirst);
    expect((await getJson("/_mock/payins?limit=3")).body.data.map((p: { id: string }) => p.id)).toEqual(
      newestFirst.slice(0, 3),
    );
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=ten", "limit"],
    ["limit=1&limit=2", "limit"],
    ["page=2", "page"],
  ])("refuses ?%s with 400 INVALID_DATA naming the field", async (query, path) => {
    for (const list of ["payins", "payouts"]) {
      const res = await getJson(`/_mock/${list}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INVALID_DATA");
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it("answers 404 NOT_FOUND for an unknown account", async () => {
    const res = await getJson("/_mock/payouts?accountId=acct_nope");
    expect(res).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    await expect(h.control.payins("acct_nope")).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
    await expect(h.control.payouts(undefined, { limit: 0 })).rejects.toMatchObject({
      status: 400,
      code: "INVALID_DATA",
    });
  });

  it("with --admin-token serves the page openly and guards the lists it reads", async () => {
    // One mock at a time (two msw servers would both intercept the base URL): afterEach closes this one.
    await h.close();
    const guarded = await startHarness(transport, { autoAdvance: false, adminToken: "t0ken-for-tests" });
    h = guarded;
    expect(((await guarded.send("/_mock/dashboard")) as Response).status).toBe(200);
    for (const path of ["/_mock/accounts", "/_mock/payins", "/_mock/payouts"]) {
      const open = (await guarded.send(path)) as Response;
      expect(open.status).toBe(401);
      const authorized = (await guarded.send(path, {
        headers: { authorization: "Bearer t0ken-for-tests" },
      })) as Response;
      expect(authorized.status).toBe(200);
    }
    expect(await guarded.control.accounts()).toHaveLength(1);
  });
});
