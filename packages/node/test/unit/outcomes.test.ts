// What a failed call tells the merchant about its effect: a definite answer never says "may have been
// created"; an unknown outcome always does, and then says what to do; a read never speaks of creation.
import { describe, expect, it } from "vitest";
import type { PaykitError } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import { fetchFailed, type Step } from "../support/fake-fetch.js";
import { payinBase, payoutPage, payoutRequest } from "../support/fixtures.js";

const error = (status: number, code: string, headers?: Record<string, string>): Step => ({
  status,
  body: { code, message: `${code} happened` },
  ...(headers ? { headers } : {}),
});
const proxyPage: Step = { status: 502, raw: "<html><body>502 Bad Gateway</body></html>" };
const pixPayin = { ...payinBase, paymentMethod: "PIX" as const };
const MAY_EXIST = /may have been created|may still be processed|was created but/;

async function failure(promise: Promise<unknown>): Promise<PaykitError> {
  return promise.then(
    () => expect.unreachable("the call succeeded"),
    (e: PaykitError) => e,
  );
}

describe("payins.create: a definite answer never says the payin may exist", () => {
  it.each<[string, string, Step]>([
    ["a declined card (PAYER_LIMIT_REJECTED)", "PaymentRefusedError", error(400, "PAYER_LIMIT_REJECTED")],
    ["a wrong CVV", "PaymentRefusedError", error(400, "INVALID_CVV")],
    ["an antifraud refusal", "PaymentRefusedError", error(400, "REJECTED_BY_RISK")],
    ["PROVIDER_ERROR (nothing was created)", "ProviderError", error(502, "PROVIDER_ERROR")],
    ["INVALID_DATA", "InvalidRequestError", error(400, "INVALID_DATA")],
    ["401", "AuthenticationError", error(401, "UNAUTHORIZED")],
    ["403", "PermissionError", error(403, "CREDIT_CARD_NOT_ENABLED")],
    ["404", "NotFoundError", error(404, "NOT_FOUND")],
    ["405", "PaykitApiError", error(405, "METHOD_NOT_ALLOWED")],
    ["413", "PaykitApiError", error(413, "PAYLOAD_TOO_LARGE")],
    [
      "429 asking for longer than maxRetryAfterMs",
      "RateLimitError",
      error(429, "RATE_LIMITED", { "retry-after": "120" }),
    ],
    ["501", "PaykitApiError", error(501, "NOT_IMPLEMENTED")],
    ["a refused connection, every attempt", "PaykitConnectionError", { reject: fetchFailed("ECONNREFUSED") }],
  ])("%s → %s, no note", async (_label, name, step) => {
    const api = scriptedClient({ "POST /v1/payin": [step, step, step] });
    const e = await failure(api.paykit.payins.create(pixPayin));
    expect(e.name).toBe(name);
    expect(e.message).not.toMatch(MAY_EXIST);
    expect(e.message).not.toContain("dashboard");
  });
});

describe("payins.create: an unknown outcome says so and points to what the merchant can do", () => {
  it.each<[string, string, Step]>([
    ["a timeout", "PaykitTimeoutError", { hang: true }],
    ["a connection cut after sending", "PaykitConnectionError", { reject: fetchFailed("ECONNRESET") }],
    ["an unknown network failure", "PaykitConnectionError", { reject: new TypeError("Failed to fetch") }],
    ["500 INTERNAL_ERROR", "PaykitApiError", error(500, "INTERNAL_ERROR")],
    ["503", "PaykitApiError", error(503, "INTERNAL_ERROR")],
    ["a proxy's HTML 502", "PaykitApiError", proxyPage],
  ])("%s → %s that may have created it", async (_label, name, step) => {
    const api = scriptedClient({ "POST /v1/payin": [step] }, { timeoutMs: 20 });
    const e = await failure(api.paykit.payins.create(pixPayin));
    expect(e.name).toBe(name);
    expect(e.message).toContain("The payin may have been created");
    expect(e.message).toContain('look for referenceId "order-1" in the dashboard before creating it again');
    expect(e.message).toContain("no lookup of payins by referenceId");
  });

  it("a 201 whose body is unreadable was created: the note says so", async () => {
    const api = scriptedClient({ "POST /v1/payin": [{ status: 201, raw: "<html>" }] });
    const e = await failure(api.paykit.payins.create(pixPayin));
    expect(e).toMatchObject({ name: "PaykitApiError", code: "INVALID_RESPONSE" });
    expect(e.message).toContain('The payin was created but its answer was lost: find referenceId "order-1"');
  });

  it("a 429 then a timeout: the last attempt's fate counts", async () => {
    const api = scriptedClient(
      { "POST /v1/payin": [error(429, "RATE_LIMITED", { "retry-after": "0" }), { hang: true }] },
      { timeoutMs: 20 },
    );
    const e = await failure(api.paykit.payins.create(pixPayin));
    expect(e.message).toMatch(/\(after 2 attempts\)\. The payin may have been created/);
  });
});

describe("payouts.create: the fate after lookups by referenceId", () => {
  const none: Step = { status: 200, body: payoutPage([]) };

  it.each<[string, Record<string, Step[]>, RegExp]>([
    [
      "500, none found, 500 again with no retry left",
      {
        "POST /v1/payout": [error(500, "INTERNAL_ERROR"), error(500, "INTERNAL_ERROR")],
        "GET /v1/payout": [none, none],
      },
      /No payout with referenceId "withdraw-1" exists, so none was created: sending it again is safe\.$/,
    ],
    [
      "a cut connection, then the lookup fails",
      {
        "POST /v1/payout": [{ reject: fetchFailed("ECONNRESET") }],
        "GET /v1/payout": [error(401, "UNAUTHORIZED")],
      },
      /The payout may have been created and looking it up failed: call payouts\.findByReferenceId\("withdraw-1"\)/,
    ],
    [
      "a timeout, none found yet, then a definite refusal",
      { "POST /v1/payout": [{ hang: true }, error(400, "INSUFFICIENT_FUNDS")], "GET /v1/payout": [none] },
      /a lost attempt may still be processed: check with payouts\.findByReferenceId\("withdraw-1"\) later/,
    ],
    [
      "a definite refusal at once",
      { "POST /v1/payout": [error(400, "INSUFFICIENT_FUNDS")] },
      /^INSUFFICIENT_FUNDS happened \(POST \/payout → 400 INSUFFICIENT_FUNDS\)\. Wait for payins to settle/,
    ],
  ])("%s", async (_label, script, expected) => {
    const api = scriptedClient(script, { timeoutMs: 20, maxRetries: 1 });
    const e = await failure(api.paykit.payouts.create(payoutRequest));
    expect(e.message).toMatch(expected);
  });

  it("a definite refusal at once says nothing of a payout that may exist", async () => {
    const api = scriptedClient({ "POST /v1/payout": [error(502, "TEMPORARY_UNAVAILABLE")] });
    const e = await failure(api.paykit.payouts.create(payoutRequest));
    expect(e.message).not.toMatch(MAY_EXIST);
  });
});

describe("a caller's abort", () => {
  it.each<
    [string, (api: ReturnType<typeof scriptedClient>, signal: AbortSignal) => Promise<unknown>, RegExp | null]
  >([
    [
      "payins.create",
      (api, signal) => api.paykit.payins.create(pixPayin, { signal }),
      /The payin may have been created/,
    ],
    [
      "payouts.create",
      (api, signal) => api.paykit.payouts.create(payoutRequest, { signal }),
      /The payout may have been created: check with payouts\.findByReferenceId\("withdraw-1"\)/,
    ],
    ["payins.retrieve", (api, signal) => api.paykit.payins.retrieve("pi_1", { signal }), null],
  ])("of %s in flight: the note says what it may have done", async (_label, call, note) => {
    const api = scriptedClient({
      "POST /v1/payin": [{ hang: true }],
      "POST /v1/payout": [{ hang: true }],
      "GET /v1/payin/pi_1": [{ hang: true }],
    });
    const controller = new AbortController();
    const promise = failure(call(api, controller.signal));
    setTimeout(() => controller.abort(), 10);
    const e = await promise;
    expect(e).toMatchObject({ name: "PaykitConnectionError", code: "ABORTED" });
    if (note) expect(e.message).toMatch(note);
    else expect(e.message).toMatch(/^GET \/payin\/pi_1 was aborted by the caller's signal\.$/);
  });

  it("before anything was sent: nothing to check", async () => {
    const api = scriptedClient({});
    const e = await failure(api.paykit.payins.create(pixPayin, { signal: AbortSignal.abort() }));
    expect(e.message).toBe("POST /payin was aborted by the caller's signal.");
    expect(api.seen).toHaveLength(0);
  });
});

describe("reads never speak of creation", () => {
  it.each<[string, Step]>([
    ["a timeout", { hang: true }],
    ["a cut connection", { reject: fetchFailed("ECONNRESET") }],
    ["500", error(500, "INTERNAL_ERROR")],
  ])("after %s", async (_label, step) => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [step, step] }, { timeoutMs: 20, maxRetries: 1 });
    const e = await failure(api.paykit.payins.retrieve("pi_1"));
    expect(e.message).toContain("after 2 attempts");
    expect(e.message).not.toMatch(MAY_EXIST);
  });
});

describe("a connection error keeps its cause and shows it", () => {
  const socket = (message: string, code: string) => Object.assign(new Error(message), { code });
  const everyAddressRefused = new TypeError("fetch failed", {
    cause: Object.assign(new AggregateError([socket("connect ECONNREFUSED ::1:443", "ECONNREFUSED")], ""), {
      code: "ECONNREFUSED",
    }),
  });
  it.each<[string, string, unknown, string]>([
    [
      "a bare TypeError (browsers, Deno)",
      "NETWORK_ERROR",
      new TypeError("Failed to fetch"),
      "Cause: Failed to fetch.",
    ],
    [
      "undici's socket error",
      "CONNECTION_RESET",
      new TypeError("fetch failed", { cause: socket("other side closed", "UND_ERR_SOCKET") }),
      "Cause: fetch failed: other side closed (UND_ERR_SOCKET).",
    ],
    [
      "a refusal",
      "CONNECTION_REFUSED",
      fetchFailed("ECONNREFUSED"),
      "Cause: fetch failed: connect ECONNREFUSED 127.0.0.1:1.",
    ],
    [
      "every address refused (AggregateError)",
      "CONNECTION_REFUSED",
      everyAddressRefused,
      "Cause: fetch failed: connect ECONNREFUSED ::1:443.",
    ],
    ["a non-error thrown by a custom fetch", "NETWORK_ERROR", "boom", "Cause: boom."],
  ])("%s → %s", async (_label, code, thrown, shown) => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [{ reject: thrown }] }, { maxRetries: 0 });
    const e = await failure(api.paykit.payins.retrieve("pi_1"));
    expect(e).toMatchObject({ name: "PaykitConnectionError", code });
    expect(e.cause).toBe(thrown);
    expect(e.message).toContain(shown);
    expect(JSON.parse(JSON.stringify(e)).cause).toBeDefined();
  });
});
