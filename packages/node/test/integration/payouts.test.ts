import { describe, expect, it } from "vitest";
import { startMock, TRANSPORTS } from "../support/mock.js";
import { payout, ref } from "../support/requests.js";

describe.each(TRANSPORTS)("payouts over %s", (transport) => {
  it("create: PENDING, fee and net unknown until processing", async () => {
    await using api = await startMock(transport);
    const request = payout({ amount: 2_500 });
    const created = await api.paykit.payouts.create(request);
    expect(created).toMatchObject({
      status: "PENDING",
      amount: 2_500,
      referenceId: request.referenceId,
      feeAmount: null,
      netAmount: null,
      externalId: null,
      beneficiaryName: "Maria Santos",
    });
    await api.control.advancePayout(created.id);
    const [processing] = (await api.paykit.payouts.list({ referenceId: request.referenceId })).data;
    expect(processing).toMatchObject({ status: "PROCESSING", feeAmount: 100, netAmount: 2_400 });
  });

  it("list: one page with meta, newest first", async () => {
    await using api = await startMock(transport);
    const refs: string[] = [];
    for (let i = 0; i < 3; i++) refs.push((await api.paykit.payouts.create(payout())).referenceId);
    const page = await api.paykit.payouts.list({ limit: 2 });
    expect(page.meta).toEqual({ total: 3, page: 1, limit: 2, totalPages: 2 });
    expect(page.data.map((p) => p.referenceId)).toEqual([refs[2], refs[1]]);
  });

  it("listAll: every payout across pages, one request per page as the loop advances", async () => {
    await using api = await startMock(transport);
    let requests = 0;
    const paykit = api.client({ hooks: { onRequest: (e) => void (e.method === "GET" && requests++) } });
    const created: string[] = [];
    for (let i = 0; i < 23; i++) created.push((await paykit.payouts.create(payout({ amount: 200 + i }))).id);
    const seen: string[] = [];
    const requestsAt: number[] = [];
    for await (const p of paykit.payouts.listAll({ limit: 10 })) {
      seen.push(p.id);
      requestsAt.push(requests);
    }
    expect(seen).toEqual([...created].reverse());
    expect(requestsAt[0]).toBe(1);
    expect(requestsAt[9]).toBe(1);
    expect(requestsAt[10]).toBe(2);
    expect(requestsAt[22]).toBe(3);
    expect(requests).toBe(3);
  });

  it("listAll does not repeat records when payouts are created while iterating", async () => {
    await using api = await startMock(transport);
    for (let i = 0; i < 12; i++) await api.paykit.payouts.create(payout());
    const seen: string[] = [];
    for await (const p of api.paykit.payouts.listAll({ limit: 5 })) {
      seen.push(p.id);
      if (seen.length === 3) await api.paykit.payouts.create(payout());
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(12);
  });

  it("findByReferenceId: the record, or null", async () => {
    await using api = await startMock(transport);
    const created = await api.paykit.payouts.create(payout());
    await expect(api.paykit.payouts.findByReferenceId(created.referenceId)).resolves.toMatchObject({
      id: created.id,
    });
    await expect(api.paykit.payouts.findByReferenceId(ref("missing"))).resolves.toBeNull();
  });

  it.each([
    ["INVALID_PIX_KEY", "InvalidPixKeyError", 400, payout({ pixKey: "notfound@bank.test" })],
    ["TEMPORARY_UNAVAILABLE", "ProviderError", 502, payout({ amount: 99_999 })],
    ["PROVIDER_REJECTED", "ProviderError", 502, payout({ pixKey: "reject-now@bank.test" })],
  ])("%s is a %s (%i), sent once", async (code, name, status, request) => {
    await using api = await startMock(transport);
    let posts = 0;
    const paykit = api.client({ hooks: { onRequest: (e) => void (e.method === "POST" && posts++) } });
    await expect(paykit.payouts.create(request)).rejects.toMatchObject({ name, code, status });
    expect(posts).toBe(1);
  });

  it("INSUFFICIENT_FUNDS is an InsufficientFundsError", async () => {
    await using api = await startMock(transport);
    const keys = await api.control.createAccount({ balance: 5_000 });
    const paykit = api.client({ publicKey: keys.publicKey, secretKey: keys.secretKey });
    await expect(paykit.payouts.create(payout({ amount: 5_001 }))).rejects.toMatchObject({
      name: "InsufficientFundsError",
      code: "INSUFFICIENT_FUNDS",
      status: 400,
    });
    await expect(paykit.payouts.create(payout({ amount: 5_000 }))).resolves.toMatchObject({
      status: "PENDING",
    });
  });

  it("TEMPORARY_UNAVAILABLE suggests retrying in 5 minutes", async () => {
    await using api = await startMock(transport);
    await expect(api.paykit.payouts.create(payout({ amount: 99_999 }))).rejects.toMatchObject({
      retryAfterMs: 300_000,
      retryable: true,
    });
  });

  it("PROVIDER_REJECTED leaves a FAILED payout with its amount returned", async () => {
    await using api = await startMock(transport);
    const request = payout({ pixKey: "reject-now@bank.test", amount: 7_000 });
    await expect(api.paykit.payouts.create(request)).rejects.toMatchObject({
      code: "PROVIDER_REJECTED",
      retryable: false,
    });
    await expect(api.paykit.payouts.findByReferenceId(request.referenceId)).resolves.toMatchObject({
      status: "FAILED",
      failureCode: "PROVIDER_REJECTED",
    });
    const account = await api.control.getAccount(api.account.accountId);
    expect(account.balance.available).toBe(1_000_000);
  });

  it("BEYOND_LIMITS at night above R$ 1.000", async () => {
    await using api = await startMock(transport);
    // 23:00 in São Paulo (UTC-3) is 02:00 UTC.
    await api.control.setClock({ now: "2030-01-15T02:00:00.000Z" });
    await expect(api.paykit.payouts.create(payout({ amount: 100_001 }))).rejects.toMatchObject({
      name: "BeyondLimitsError",
      code: "BEYOND_LIMITS",
    });
    await expect(api.paykit.payouts.create(payout({ amount: 100_000 }))).resolves.toMatchObject({
      status: "PENDING",
    });
  });

  it("a reused referenceId is refused by the service as INVALID_DATA", async () => {
    await using api = await startMock(transport);
    const request = payout();
    await api.paykit.payouts.create(request);
    await expect(api.paykit.payouts.create(request)).rejects.toMatchObject({
      name: "InvalidRequestError",
      details: [expect.objectContaining({ path: "referenceId" })],
    });
  });
});
