import { describe, expect, it } from "vitest";
import { scriptedClient } from "../support/client.js";
import { fetchFailed, type Step } from "../support/fake-fetch.js";
import { payinBase, payoutPage, payoutRecord, payoutRequest, pixCreated } from "../support/fixtures.js";

const payout = payoutRecord();
const ok = (body: unknown, status = 200): Step => ({ status, body });
const error = (status: number, code: string, headers?: Record<string, string>): Step => ({
  status,
  body: { code, message: `${code} happened` },
  ...(headers ? { headers } : {}),
});
const proxyPage: Step = { status: 502, raw: "<html><body>502 Bad Gateway</body></html>" };
const pixPayin = { ...payinBase, paymentMethod: "PIX" as const };

describe("GET: retried on transient failures (docs/errors-and-retries.md)", () => {
  it.each<[string, Step]>([
    ["connection refused", { reject: fetchFailed("ECONNREFUSED") }],
    ["connection reset", { reject: fetchFailed("ECONNRESET") }],
    ["a runtime without error codes", { reject: new TypeError("Failed to fetch") }],
    ["429", error(429, "RATE_LIMITED")],
    ["500", error(500, "INTERNAL_ERROR")],
    ["503", error(503, "INTERNAL_ERROR")],
    ["a proxy's HTML 502", proxyPage],
  ])("retries after %s and returns the answer", async (_label, failure) => {
    const api = scriptedClient({ "GET /v1/payout": [failure, ok(payoutPage([payout]))] });
    await expect(api.paykit.payouts.list()).resolves.toMatchObject({ data: [{ id: "po_01" }] });
    expect(api.count("GET /v1/payout")).toBe(2);
    expect(api.retries).toHaveLength(1);
  });

  it("retries after a timeout", async () => {
    const api = scriptedClient(
      { "GET /v1/payin/pi_1": [{ hang: true }, ok({})] },
      { timeoutMs: 20, validateRequests: true },
    );
    await api.paykit.payins.retrieve("pi_1");
    expect(api.retries[0]).toMatchObject({ reason: "timeout" });
  });

  it.each<[string, Step, string]>([
    ["501", error(501, "NOT_IMPLEMENTED"), "PaykitApiError"],
    ["404", error(404, "NOT_FOUND"), "NotFoundError"],
    ["401", error(401, "UNAUTHORIZED"), "AuthenticationError"],
    ["400", error(400, "INVALID_DATA"), "InvalidRequestError"],
  ])("does not retry %s", async (_label, failure, name) => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [failure] });
    await expect(api.paykit.payins.retrieve("pi_1")).rejects.toMatchObject({ name });
    expect(api.count("GET /v1/payin/pi_1")).toBe(1);
  });

  it("gives up after maxRetries and reports the attempts", async () => {
    const api = scriptedClient({
      "GET /v1/payin/pi_1": [
        error(503, "INTERNAL_ERROR"),
        error(503, "INTERNAL_ERROR"),
        error(503, "INTERNAL_ERROR"),
      ],
    });
    await expect(api.paykit.payins.retrieve("pi_1")).rejects.toMatchObject({
      name: "PaykitApiError",
      status: 503,
      retryable: true,
      message: expect.stringContaining("after 3 attempts"),
    });
    expect(api.count("GET /v1/payin/pi_1")).toBe(3);
  });

  it("honours a per-call maxRetries", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [error(503, "INTERNAL_ERROR")] });
    await expect(api.paykit.payins.retrieve("pi_1", { maxRetries: 0 })).rejects.toMatchObject({
      status: 503,
    });
    expect(api.count("GET /v1/payin/pi_1")).toBe(1);
  });

  it.each([
    ["delta seconds", "0.05", 50],
    ["an HTTP date", () => new Date(Date.now() + 1_000).toUTCString(), 1_000],
  ])(
    "waits the Retry-After of a 429 given as %s",
    async (_label, header, expected) => {
      const value = typeof header === "function" ? header() : header;
      const api = scriptedClient(
        { "GET /v1/payin/pi_1": [error(429, "RATE_LIMITED", { "retry-after": value }), ok({})] },
        { retryBackoff: { initialDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 60_000 } },
      );
      const started = Date.now();
      await api.paykit.payins.retrieve("pi_1");
      expect(api.retries[0]?.delayMs).toBeGreaterThan(expected - 1_100);
      expect(api.retries[0]?.delayMs).toBeLessThanOrEqual(expected);
      expect(Date.now() - started).toBeGreaterThanOrEqual((api.retries[0]?.delayMs ?? 0) - 5);
    },
    10_000,
  );

  it("stops retrying when Retry-After exceeds the cap, and hands the delay to the caller", async () => {
    const api = scriptedClient({
      "GET /v1/payin/pi_1": [error(429, "RATE_LIMITED", { "retry-after": "120" })],
    });
    await expect(api.paykit.payins.retrieve("pi_1")).rejects.toMatchObject({
      name: "RateLimitError",
      retryAfterMs: 120_000,
      retryable: true,
    });
    expect(api.count("GET /v1/payin/pi_1")).toBe(1);
  });

  it("stops at once when the caller aborts, with no further attempt", async () => {
    const controller = new AbortController();
    const api = scriptedClient({ "GET /v1/payin/pi_1": [{ hang: true }] });
    const promise = api.paykit.payins.retrieve("pi_1", { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(promise).rejects.toMatchObject({
      name: "PaykitConnectionError",
      code: "ABORTED",
      retryable: false,
    });
    expect(api.count("GET /v1/payin/pi_1")).toBe(1);
  });
});

describe("POST /payin: retried only when it certainly never reached the service, or on 429", () => {
  it.each<[string, Step]>([
    ["connection refused", { reject: fetchFailed("ECONNREFUSED") }],
    ["a DNS failure", { reject: fetchFailed("ENOTFOUND") }],
    ["429", error(429, "RATE_LIMITED", { "retry-after": "0" })],
  ])("retries after %s", async (_label, failure) => {
    const api = scriptedClient({ "POST /v1/payin": [failure, ok(pixCreated, 201)] });
    await expect(api.paykit.payins.create(pixPayin)).resolves.toMatchObject({ id: "pi_01" });
    expect(api.count("POST /v1/payin")).toBe(2);
  });

  it.each<[string, Step, Record<string, unknown>]>([
    [
      "a connection reset (may have been sent)",
      { reject: fetchFailed("ECONNRESET") },
      { name: "PaykitConnectionError", code: "CONNECTION_RESET" },
    ],
    ["an unknown network failure", { reject: new TypeError("Failed to fetch") }, { code: "NETWORK_ERROR" }],
    ["500 INTERNAL_ERROR", error(500, "INTERNAL_ERROR"), { name: "PaykitApiError", status: 500 }],
    ["a proxy's HTML 502", proxyPage, { status: 502, code: "UNKNOWN_ERROR" }],
    ["502 PROVIDER_ERROR", error(502, "PROVIDER_ERROR"), { name: "ProviderError", code: "PROVIDER_ERROR" }],
  ])("does not retry %s", async (_label, failure, expected) => {
    const api = scriptedClient({ "POST /v1/payin": [failure] });
    await expect(api.paykit.payins.create(pixPayin)).rejects.toMatchObject(expected);
    expect(api.count("POST /v1/payin")).toBe(1);
  });

  it("does not retry a timeout, and says the payin may exist", async () => {
    const api = scriptedClient({ "POST /v1/payin": [{ hang: true }] }, { timeoutMs: 20 });
    await expect(api.paykit.payins.create(pixPayin)).rejects.toMatchObject({
      name: "PaykitTimeoutError",
      code: "TIMEOUT",
      message: expect.stringContaining("may have been created"),
    });
    expect(api.count("POST /v1/payin")).toBe(1);
  });
});

describe("POST /payout: looked up by referenceId after an ambiguous failure", () => {
  const found = ok(payoutPage([payout]));
  const none = ok(payoutPage([]));

  it.each<[string, Step]>([
    ["a timeout", { hang: true }],
    ["a connection reset after sending", { reject: fetchFailed("ECONNRESET") }],
    ["500 INTERNAL_ERROR", error(500, "INTERNAL_ERROR")],
    ["a proxy's HTML 502", proxyPage],
    ["a 201 with an unreadable body", { status: 201, raw: "<html>" }],
  ])("after %s, returns the payout found without sending it again", async (_label, failure) => {
    const api = scriptedClient(
      { "POST /v1/payout": [failure], "GET /v1/payout": [found] },
      { timeoutMs: 30 },
    );
    await expect(api.paykit.payouts.create(payoutRequest)).resolves.toMatchObject({ id: "po_01" });
    expect(api.count("POST /v1/payout")).toBe(1);
    expect(api.lookups).toEqual([expect.objectContaining({ referenceId: "withdraw-1", found: true })]);
    expect(new URL(api.seen[1]!.url).searchParams.get("referenceId")).toBe("withdraw-1");
  });

  it("after an ambiguous failure with no payout found, sends it again", async () => {
    const api = scriptedClient({
      "POST /v1/payout": [error(500, "INTERNAL_ERROR"), ok(payout, 201)],
      "GET /v1/payout": [none],
    });
    await expect(api.paykit.payouts.create(payoutRequest)).resolves.toMatchObject({ id: "po_01" });
    expect(api.count("POST /v1/payout")).toBe(2);
  });

  it("when retries run out after lookups found nothing, says none was created", async () => {
    const api = scriptedClient(
      {
        "POST /v1/payout": [error(500, "INTERNAL_ERROR"), error(500, "INTERNAL_ERROR")],
        "GET /v1/payout": [none, none],
      },
      { maxRetries: 1 },
    );
    await expect(api.paykit.payouts.create(payoutRequest)).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining("none was created"),
    });
    expect(api.count("POST /v1/payout")).toBe(2);
  });

  it("when the lookup itself fails, does not send again and says to look it up", async () => {
    const api = scriptedClient({
      "POST /v1/payout": [{ reject: fetchFailed("ECONNRESET") }],
      "GET /v1/payout": [error(401, "UNAUTHORIZED")],
    });
    await expect(api.paykit.payouts.create(payoutRequest)).rejects.toMatchObject({
      name: "PaykitConnectionError",
      message: expect.stringContaining('findByReferenceId("withdraw-1")'),
    });
    expect(api.count("POST /v1/payout")).toBe(1);
  });

  it("a retry answered 'referenceId already used' returns the payout the lost attempt created", async () => {
    const conflict: Step = {
      status: 400,
      body: {
        code: "INVALID_DATA",
        message: "referenceId is already used",
        details: [{ path: "referenceId", message: "is already used" }],
      },
    };
    const api = scriptedClient({
      "POST /v1/payout": [{ reject: fetchFailed("ECONNRESET") }, conflict],
      "GET /v1/payout": [none, found],
    });
    await expect(api.paykit.payouts.create(payoutRequest)).resolves.toMatchObject({ id: "po_01" });
  });

  it("without a prior ambiguous attempt, 'referenceId already used' is the caller's error", async () => {
    const conflict: Step = {
      status: 400,
      body: {
        code: "INVALID_DATA",
        message: "referenceId is already used",
        details: [{ path: "referenceId", message: "is already used" }],
      },
    };
    const api = scriptedClient({ "POST /v1/payout": [conflict] });
    await expect(api.paykit.payouts.create(payoutRequest)).rejects.toMatchObject({
      name: "InvalidRequestError",
    });
    expect(api.count("GET /v1/payout")).toBe(0);
  });

  it.each<[string, Step]>([
    ["connection refused", { reject: fetchFailed("ECONNREFUSED") }],
    ["429", error(429, "RATE_LIMITED", { "retry-after": "0" })],
  ])("after %s, sends again without a lookup (it never arrived)", async (_label, failure) => {
    const api = scriptedClient({ "POST /v1/payout": [failure, ok(payout, 201)] });
    await expect(api.paykit.payouts.create(payoutRequest)).resolves.toMatchObject({ id: "po_01" });
    expect(api.count("GET /v1/payout")).toBe(0);
  });

  it.each<[string, Record<string, unknown>]>([
    ["TEMPORARY_UNAVAILABLE", { name: "ProviderError", retryAfterMs: 300_000, retryable: true }],
    ["PROVIDER_REJECTED", { name: "ProviderError", retryable: false }],
    ["PROVIDER_ERROR", { name: "ProviderError", retryable: true }],
  ])("never retries the documented 502 %s", async (code, expected) => {
    const api = scriptedClient({ "POST /v1/payout": [error(502, code)] });
    await expect(api.paykit.payouts.create(payoutRequest)).rejects.toMatchObject({ code, ...expected });
    expect(api.count("POST /v1/payout")).toBe(1);
    expect(api.count("GET /v1/payout")).toBe(0);
  });

  it.each(["INSUFFICIENT_FUNDS", "INVALID_PIX_KEY", "BEYOND_LIMITS"])(
    "never retries the business error %s",
    async (code) => {
      const api = scriptedClient({ "POST /v1/payout": [error(400, code)] });
      await expect(api.paykit.payouts.create(payoutRequest)).rejects.toMatchObject({ code, status: 400 });
      expect(api.seen).toHaveLength(1);
    },
  );
});
