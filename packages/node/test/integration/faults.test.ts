import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { Paykit, type RetryEvent } from "../../src/index.js";
import { startMock, TRANSPORTS } from "../support/mock.js";
import { payout, pixPayin } from "../support/requests.js";

/** Counts attempts per "METHOD path" through the onRequest hook. */
function counter() {
  const counts = new Map<string, number>();
  const retries: RetryEvent[] = [];
  return {
    hooks: {
      onRequest: (e: { method: string; path: string }) => {
        const key = `${e.method} ${e.path.split("?")[0]}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      },
      onRetry: (e: RetryEvent) => void retries.push(e),
    },
    count: (key: string) => counts.get(key) ?? 0,
    retries,
  };
}

async function payoutsWithReference(api: { paykit: Paykit }, referenceId: string): Promise<number> {
  return (await api.paykit.payouts.list({ referenceId, limit: 100 })).meta.total;
}

describe.each(TRANSPORTS)("injected faults over %s", (transport) => {
  it("GET answered 429 with Retry-After: waits, then succeeds", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    await api.control.addFault({ method: "GET", path: "/payout", status: 429 });
    await expect(paykit.payouts.list()).resolves.toMatchObject({ meta: { page: 1 } });
    expect(c.count("GET payout")).toBe(2);
    expect(c.retries).toEqual([expect.objectContaining({ reason: "status 429", delayMs: 1_000 })]);
  });

  it.each([500, 502, 503])("GET answered %i: retried", async (status) => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    const created = await paykit.payins.create(pixPayin());
    await api.control.addFault({ method: "GET", path: `/payin/${created.id}`, status, times: 2 });
    await expect(paykit.payins.retrieve(created.id)).resolves.toMatchObject({ id: created.id });
    expect(c.count(`GET payin/${created.id}`)).toBe(3);
  });

  it("GET slower than timeoutMs: times out, retried, succeeds", async () => {
    await using api = await startMock(transport);
    const c = counter();
    // The retry must answer within timeoutMs: 100 ms was too little for a loaded CI machine.
    const paykit = api.client({ hooks: c.hooks, timeoutMs: 1_500 });
    await api.control.addFault({ method: "GET", path: "/payout", latencyMs: 3_000, times: 1 });
    await expect(paykit.payouts.list()).resolves.toBeDefined();
    expect(c.retries[0]).toMatchObject({ reason: "timeout" });
  });

  it("GET slower than timeoutMs every time: a PaykitTimeoutError after maxRetries", async () => {
    await using api = await startMock(transport);
    const paykit = api.client({ timeoutMs: 50, maxRetries: 1 });
    await api.control.addFault({ method: "GET", path: "/payout", latencyMs: 200, times: 2 });
    await expect(paykit.payouts.list()).rejects.toMatchObject({ name: "PaykitTimeoutError", timeoutMs: 50 });
  });

  it("GET whose connection is cut: retried", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    await api.control.addFault({ method: "GET", path: "/payout", dropResponse: true });
    await expect(paykit.payouts.list()).resolves.toBeDefined();
    expect(c.count("GET payout")).toBe(2);
  });

  it("POST /payout committed, then the answer dropped: exactly one payout, the one returned", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    const request = payout();
    await api.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
    const created = await paykit.payouts.create(request);
    expect(created.referenceId).toBe(request.referenceId);
    expect(c.count("POST payout")).toBe(1);
    expect(await payoutsWithReference(api, request.referenceId)).toBe(1);
  });

  it("POST /payout answered 500 before running: looked up, none found, sent again, exactly one payout", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    const request = payout();
    await api.control.addFault({ method: "POST", path: "/payout", status: 500 });
    await expect(paykit.payouts.create(request)).resolves.toMatchObject({ referenceId: request.referenceId });
    expect(c.count("POST payout")).toBe(2);
    expect(await payoutsWithReference(api, request.referenceId)).toBe(1);
  });

  it("POST /payout slower than timeoutMs: no double payout, the payout is returned", async () => {
    await using api = await startMock(transport);
    const paykit = api.client({
      timeoutMs: 100,
      maxRetries: 3,
      retryBackoff: { initialDelayMs: 150, maxDelayMs: 300 },
    });
    const request = payout();
    await api.control.addFault({ method: "POST", path: "/payout", latencyMs: 250 });
    const created = await paykit.payouts.create(request);
    expect(created.referenceId).toBe(request.referenceId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await payoutsWithReference(api, request.referenceId)).toBe(1);
  });

  it("POST /payout 502 TEMPORARY_UNAVAILABLE is never retried", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    await api.control.addFault({
      method: "POST",
      path: "/payout",
      status: 502,
      code: "TEMPORARY_UNAVAILABLE",
    });
    await expect(paykit.payouts.create(payout())).rejects.toMatchObject({ code: "TEMPORARY_UNAVAILABLE" });
    expect(c.count("POST payout") + c.count("GET payout")).toBe(1);
  });

  it.each([
    ["answered 500", { status: 500 }, "PaykitApiError"],
    ["cut after committing", { dropResponse: true }, "PaykitConnectionError"],
  ])("POST /payin %s is not retried (no lookup exists for payins)", async (_label, fault, name) => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    await api.control.addFault({ method: "POST", path: "/payin", ...fault });
    await expect(paykit.payins.create(pixPayin())).rejects.toMatchObject({ name });
    expect(c.count("POST payin")).toBe(1);
  });

  it("POST /payin answered 429 is retried", async () => {
    await using api = await startMock(transport);
    const c = counter();
    const paykit = api.client({ hooks: c.hooks });
    await api.control.addFault({ method: "POST", path: "/payin", status: 429 });
    await expect(paykit.payins.create(pixPayin())).resolves.toMatchObject({ status: "PENDING" });
    expect(c.count("POST payin")).toBe(2);
  });
});

describe("a service that refuses connections", () => {
  it("POST /payin is retried (it never arrived) and then reported as CONNECTION_REFUSED", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const c = counter();
    const paykit = new Paykit({
      publicKey: "pk_test_a",
      secretKey: "sk_test_b",
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 2,
      retryBackoff: { initialDelayMs: 1, maxDelayMs: 2 },
      hooks: c.hooks,
    });
    await expect(paykit.payins.create(pixPayin())).rejects.toMatchObject({
      name: "PaykitConnectionError",
      code: "CONNECTION_REFUSED",
      retryable: true,
      message: expect.stringContaining("after 3 attempts"),
    });
    expect(c.count("POST payin")).toBe(3);
  });
});
