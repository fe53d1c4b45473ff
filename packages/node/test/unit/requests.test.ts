import { describe, expect, it, vi } from "vitest";
import { scriptedClient } from "../support/client.js";
import {
  BASE_URL,
  card,
  customer,
  payinBase,
  payoutPage,
  payoutRecord,
  payoutRequest,
  pixCreated,
} from "../support/fixtures.js";

describe("requests are validated with the contract before sending", () => {
  it("a bad payin lists every failing path and sends nothing", async () => {
    const api = scriptedClient({});
    const bad = {
      ...payinBase,
      paymentMethod: "PIX" as const,
      amount: 0,
      customer: { ...customer, document: "123", address: { ...customer.address, zipCode: "0131-010" } },
      items: [{ title: "Plan", quantity: 0, unitPrice: 100 }],
    };
    await expect(api.paykit.payins.create(bad)).rejects.toMatchObject({
      name: "PaykitValidationError",
      code: "INVALID_DATA",
      message: expect.stringContaining("Nothing was sent"),
      details: expect.arrayContaining([
        expect.objectContaining({ path: "amount" }),
        expect.objectContaining({ path: "customer.document" }),
        expect.objectContaining({ path: "customer.address.zipCode" }),
        expect.objectContaining({ path: "items.0.quantity" }),
      ]),
    });
    expect(api.seen).toHaveLength(0);
  });

  it("a malformed PIX key is INVALID_PIX_KEY, like the service would answer", async () => {
    const api = scriptedClient({});
    await expect(
      api.paykit.payouts.create({ ...payoutRequest, pixKey: "not-an-email" }),
    ).rejects.toMatchObject({
      name: "PaykitValidationError",
      code: "INVALID_PIX_KEY",
      details: [expect.objectContaining({ path: "pixKey" })],
    });
    expect(api.seen).toHaveLength(0);
  });

  it("a bad list query is refused", async () => {
    const api = scriptedClient({});
    await expect(api.paykit.payouts.list({ limit: 500 })).rejects.toMatchObject({
      details: [expect.objectContaining({ path: "limit" })],
    });
  });

  it("validateRequests: false sends the request as is and lets the service judge", async () => {
    const api = scriptedClient(
      {
        "POST /v1/payout": [
          {
            status: 400,
            body: {
              code: "INVALID_DATA",
              message: "amount must be at least 1",
              details: [{ path: "amount", message: "must be at least 1" }],
            },
          },
        ],
      },
      { validateRequests: false },
    );
    await expect(api.paykit.payouts.create({ ...payoutRequest, amount: 0 })).rejects.toMatchObject({
      name: "InvalidRequestError",
      details: [{ path: "amount", message: "must be at least 1" }],
    });
    expect(JSON.parse(api.seen[0]!.body!)).toEqual({ ...payoutRequest, amount: 0 });
  });
});

describe("paths and queries", () => {
  it.each([
    ["a slash", "pi_1/../../payout", "/v1/payin/pi_1%2F..%2F..%2Fpayout"],
    ["a query", "pi_1?x=1", "/v1/payin/pi_1%3Fx%3D1"],
    ["a fragment", "pi#1", "/v1/payin/pi%231"],
  ])("an id with %s stays one path segment", async (_label, id, pathname) => {
    const api = scriptedClient({ [`GET ${pathname}`]: [{ status: 200, body: {} }] });
    await api.paykit.payins.retrieve(id);
    expect(api.seen[0]!.url).toBe(`${new URL(BASE_URL).origin}${pathname}`);
  });

  it.each(["", ".", ".."])("the id %j is refused before sending", async (id) => {
    const api = scriptedClient({});
    await expect(api.paykit.payins.retrieve(id)).rejects.toMatchObject({ name: "PaykitValidationError" });
    expect(api.seen).toHaveLength(0);
  });

  it("list sends only the given filters", async () => {
    const api = scriptedClient({ "GET /v1/payout": [{ status: 200, body: payoutPage([]) }] });
    await api.paykit.payouts.list({ status: "COMPLETED", page: 2, limit: 5, startDate: "2026-11-01" });
    expect(new URL(api.seen[0]!.url).search).toBe("?status=COMPLETED&page=2&limit=5&startDate=2026-11-01");
  });

  it("list sends an RFC 3339 date-time as given, and refuses a date that does not exist before sending", async () => {
    const api = scriptedClient({ "GET /v1/payout": [{ status: 200, body: payoutPage([]) }] });
    await api.paykit.payouts.list({ endDate: "2016-12-31T23:59:60.1234567891z" });
    expect(new URL(api.seen[0]!.url).searchParams.get("endDate")).toBe("2016-12-31T23:59:60.1234567891z");
    await expect(api.paykit.payouts.list({ startDate: "2026-02-30T00:00:00Z" })).rejects.toMatchObject({
      name: "PaykitValidationError",
      details: [{ path: "startDate", message: expect.stringContaining("that exists") }],
    });
    expect(api.seen).toHaveLength(1);
  });

  it("payins.create posts JSON with the method's body", async () => {
    const api = scriptedClient({
      "POST /v1/payin": [
        { status: 201, body: { ...pixCreated, paymentMethod: "CREDIT_CARD", status: "APPROVED" } },
      ],
    });
    await api.paykit.payins.create({ ...payinBase, paymentMethod: "CREDIT_CARD", card });
    expect(api.seen[0]!.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(api.seen[0]!.body!)).toMatchObject({
      paymentMethod: "CREDIT_CARD",
      card: { installments: 1 },
    });
  });
});

describe("responses are parsed leniently", () => {
  it("keeps unknown fields and unknown statuses", async () => {
    const record = { ...payoutRecord(), status: "ON_HOLD", riskScore: 12 };
    const api = scriptedClient({ "POST /v1/payout": [{ status: 201, body: record }] });
    await expect(api.paykit.payouts.create(payoutRequest)).resolves.toEqual(record);
  });

  it("returns an answer that breaks the contract as received and reports it through onResponseMismatch", async () => {
    const onResponseMismatch = vi.fn();
    const broken = { ...pixCreated, pix: undefined, amount: "10000" };
    const api = scriptedClient(
      { "POST /v1/payin": [{ status: 201, body: broken }] },
      { hooks: { onResponseMismatch } },
    );
    const payin = await api.paykit.payins.create({ ...payinBase, paymentMethod: "PIX" });
    expect(payin).toEqual(JSON.parse(JSON.stringify(broken)));
    expect(onResponseMismatch).toHaveBeenCalledWith(
      expect.objectContaining({
        method: "POST",
        path: "payin",
        status: 201,
        details: expect.arrayContaining([
          expect.objectContaining({ path: "pix" }),
          expect.objectContaining({ path: "amount" }),
        ]),
      }),
    );
  });

  it("a 2xx whose body is not a JSON object is an INVALID_RESPONSE error on reads", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [{ status: 200, raw: "OK" }] });
    await expect(api.paykit.payins.retrieve("pi_1")).rejects.toMatchObject({
      name: "PaykitApiError",
      code: "INVALID_RESPONSE",
      status: 200,
    });
  });

  it("a hook that throws never changes the outcome", async () => {
    const api = scriptedClient(
      { "GET /v1/payin/pi_1": [{ status: 200, body: {} }] },
      {
        hooks: {
          onRequest: () => {
            throw new Error("logger down");
          },
          onResponse: () => {
            throw new Error("x");
          },
        },
      },
    );
    await expect(api.paykit.payins.retrieve("pi_1")).resolves.toEqual({});
  });
});

describe("pagination", () => {
  const records = Array.from({ length: 25 }, (_, i) =>
    payoutRecord({
      id: `po_${String(25 - i).padStart(2, "0")}`,
      createdAt: new Date(Date.UTC(2026, 10, 22, 0, 0, 25 - i)).toISOString(),
    }),
  );
  const pages = [0, 1, 2].map((p) => ({
    status: 200,
    body: payoutPage(records.slice(p * 10, p * 10 + 10), p + 1, 10, 25),
  }));

  it("listAll fetches a page only when the previous one is used up", async () => {
    const api = scriptedClient({ "GET /v1/payout": [...pages] });
    const ids: string[] = [];
    const requestsSeen: number[] = [];
    for await (const payout of api.paykit.payouts.listAll({ limit: 10 })) {
      ids.push(payout.id);
      requestsSeen.push(api.seen.length);
    }
    expect(ids).toEqual(records.map((r) => r.id));
    expect(requestsSeen.slice(0, 10)).toEqual(Array(10).fill(1));
    expect(requestsSeen.slice(10, 20)).toEqual(Array(10).fill(2));
    expect(requestsSeen.slice(20)).toEqual(Array(5).fill(3));
  });

  it("listAll stops early when the loop breaks, and pins later pages to the first page's newest record", async () => {
    const api = scriptedClient({ "GET /v1/payout": [...pages] });
    let n = 0;
    for await (const _ of api.paykit.payouts.listAll({ limit: 10 })) if (++n === 11) break;
    expect(api.seen).toHaveLength(2);
    const second = new URL(api.seen[1]!.url).searchParams;
    expect(second.get("page")).toBe("2");
    expect(second.get("endDate")).toBe(records[0]!.createdAt);
  });

  it("listAll of an empty account makes one request", async () => {
    const api = scriptedClient({ "GET /v1/payout": [{ status: 200, body: payoutPage([], 1, 100, 0) }] });
    for await (const _ of api.paykit.payouts.listAll()) expect.unreachable();
    expect(api.seen).toHaveLength(1);
  });

  it("findByReferenceId returns the record or null", async () => {
    const api = scriptedClient({
      "GET /v1/payout": [
        { status: 200, body: payoutPage([payoutRecord()]) },
        { status: 200, body: payoutPage([]) },
      ],
    });
    await expect(api.paykit.payouts.findByReferenceId("withdraw-1")).resolves.toMatchObject({ id: "po_01" });
    await expect(api.paykit.payouts.findByReferenceId("withdraw-2")).resolves.toBeNull();
    expect(new URL(api.seen[0]!.url).search).toBe("?referenceId=withdraw-1&limit=1");
  });
});
