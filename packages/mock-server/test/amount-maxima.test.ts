// Amounts have per-method maxima small enough that every balance sum stays an exact integer; 2^53 − 1
// and 2^52 are refused everywhere money enters the mock (issue 10, docs/decisions/requests.md).
import { MAX_AMOUNT_CENTS } from "@paykit/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { samplePayin } from "../src/index.js";
import { apiOf, type Harness, payoutBody, startHarness } from "./fixtures.js";

const HUGE = [2 ** 53 - 1, 2 ** 52];

describe("amount maxima", () => {
  let h: Harness;
  let api: ReturnType<typeof apiOf>;
  beforeEach(async () => {
    h = await startHarness("engine", { autoAdvance: false });
    api = apiOf(h);
    await h.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
  });
  afterEach(() => h.close());

  it.each(["PIX", "BOLETO", "CREDIT_CARD", "OPEN_FINANCE"] as const)(
    "a %s payin takes its maximum and refuses one cent more, 2^52 and 2^53 - 1",
    async (method) => {
      const max = MAX_AMOUNT_CENTS[method];
      expect((await api.post("/payin", samplePayin(method, { amount: max }))).status).toBe(201);
      for (const amount of [max + 1, ...HUGE]) {
        const res = await api.post("/payin", samplePayin(method, { amount }));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: "INVALID_DATA", details: [{ path: "amount" }] });
      }
    },
  );

  it("two card payins at the maximum keep the balance exact to the cent", async () => {
    const card = samplePayin("CREDIT_CARD", { amount: MAX_AMOUNT_CENTS.CREDIT_CARD });
    await api.post("/payin", card);
    await api.post("/payin", { ...card, referenceId: "second-card" });
    const net = MAX_AMOUNT_CENTS.CREDIT_CARD - Math.round(MAX_AMOUNT_CENTS.CREDIT_CARD * 0.0399);
    const reserve = Math.round(net * 0.1);
    const { balance } = await h.control.getAccount(h.account.accountId);
    expect(balance.available).toBe(1_000_000 + 2 * (net - reserve));
    expect(Number.isSafeInteger(balance.available)).toBe(true);
  });

  it.each(HUGE)("refuses %d as a payout amount, an opening balance, a fee and a limit", async (huge) => {
    expect((await api.post("/payout", payoutBody({ amount: huge }))).body.code).toBe("INVALID_DATA");
    await expect(h.control.createAccount({ balance: huge })).rejects.toMatchObject({ code: "INVALID_DATA" });
    await expect(
      h.control.updateAccount(h.account.accountId, { fees: { payoutFlatCents: huge } }),
    ).rejects.toMatchObject({ code: "INVALID_DATA" });
    await expect(
      h.control.updateAccount(h.account.accountId, { limits: { dayMaxCents: huge } }),
    ).rejects.toMatchObject({ code: "INVALID_DATA" });
    await expect(
      h.control.updateAccount(h.account.accountId, { fees: { payin: { PIX: { flatCents: huge } } } }),
    ).rejects.toMatchObject({ code: "INVALID_DATA" });
  });
});
