// Every attempt gets a client-made id, sent as X-Request-Id, and the same id is on the hooks' events,
// on the error the call ends in and on withResponse() (docs/decisions/request-ids.md).
import { describe, expect, it } from "vitest";
import { newRequestId } from "../../src/core/request-id.js";
import type { RequestEvent, ResponseEvent, ResponseMismatchEvent } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import { fetchFailed, type SeenRequest, type Step } from "../support/fake-fetch.js";
import { payinBase, payoutPage, payoutRecord, payoutRequest } from "../support/fixtures.js";

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
const ok = (body: unknown, status = 200): Step => ({ status, body });
const unavailable: Step = { status: 503, body: { code: "INTERNAL_ERROR", message: "try again" } };
const sentIds = (seen: SeenRequest[]) => seen.map((r) => r.headers.get("x-request-id"));

async function caught(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}

/** A scripted client that also records the request and response hooks' events. */
function recordingClient(script: Record<string, Step[]>, options: Parameters<typeof scriptedClient>[1] = {}) {
  const requests: RequestEvent[] = [];
  const responses: ResponseEvent[] = [];
  const mismatches: ResponseMismatchEvent[] = [];
  const api = scriptedClient(script, {
    ...options,
    hooks: {
      onRequest: (e) => requests.push(e),
      onResponse: (e) => responses.push(e),
      onResponseMismatch: (e) => mismatches.push(e),
    },
  });
  return { ...api, requests, responses, mismatches };
}

describe("the id's format", () => {
  it("is req_ and 26 Crockford base32 characters, the first 10 the time in ms", () => {
    const before = Date.now();
    const id = newRequestId();
    expect(id).toMatch(REQUEST_ID);
    const time = [...id.slice(4, 14)].reduce(
      (ms, c) => ms * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(c),
      0,
    );
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
  });

  it("never repeats, and sorts in the order the ids were made (also within one millisecond)", () => {
    const ids = Array.from({ length: 20_000 }, () => newRequestId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("one id per attempt, sent as X-Request-Id", () => {
  it("a read retried twice sends three ids; the hooks see each attempt's own", async () => {
    const api = recordingClient({ "GET /v1/payin/pi_1": [unavailable, unavailable, ok({ id: "pi_1" })] });
    const { requestId } = await api.paykit.payins.retrieve("pi_1").withResponse();
    const sent = sentIds(api.seen);
    expect(sent).toHaveLength(3);
    for (const id of sent) expect(id).toMatch(REQUEST_ID);
    expect(new Set(sent).size).toBe(3);
    expect(api.requests.map((e) => [e.attempt, e.requestId])).toEqual(sent.map((id, i) => [i, id]));
    expect(api.responses.map((e) => [e.status, e.requestId])).toEqual([
      [503, sent[0]],
      [503, sent[1]],
      [200, sent[2]],
    ]);
    expect(requestId).toBe(sent[2]);
  });

  it("a retry event names the failed attempt's id", async () => {
    const api = scriptedClient({ "GET /v1/payout": [unavailable, ok(payoutPage([]))] });
    await api.paykit.payouts.list();
    expect(api.retries).toEqual([expect.objectContaining({ attempt: 0, requestId: sentIds(api.seen)[0] })]);
  });

  it("a caller's own X-Request-Id header does not replace the client's", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": [ok({ id: "pi_1" })] });
    const { requestId } = await api.paykit.payins
      .retrieve("pi_1", { headers: { "X-Request-Id": "mine", "x-shop": "1" } })
      .withResponse();
    expect(api.seen[0]?.headers.get("x-request-id")).toBe(requestId);
    expect(api.seen[0]?.headers.get("x-shop")).toBe("1");
  });

  it("an answer that breaks the contract is reported with the id of the attempt that got it", async () => {
    const api = recordingClient({ "GET /v1/payin/pi_1": [ok({ id: "pi_1", amount: "ten" })] });
    await api.paykit.payins.retrieve("pi_1");
    expect(api.mismatches).toEqual([expect.objectContaining({ requestId: sentIds(api.seen)[0] })]);
  });
});

describe("the error names the last attempt's id", () => {
  it.each<[string, Step[], string]>([
    ["an API error after retries", [unavailable, unavailable, unavailable], "PaykitApiError"],
    [
      "a connection error after retries",
      [
        { reject: fetchFailed("ECONNRESET") },
        { reject: fetchFailed("ECONNRESET") },
        { reject: fetchFailed("ECONNRESET") },
      ],
      "PaykitConnectionError",
    ],
    [
      "a connection refused (never reached the service, but attempted)",
      [{ reject: fetchFailed("ECONNREFUSED") }],
      "PaykitConnectionError",
    ],
  ])("%s", async (_label, steps, name) => {
    const api = scriptedClient({ "GET /v1/payin/pi_1": steps }, { maxRetries: steps.length - 1 });
    const error = await caught(api.paykit.payins.retrieve("pi_1"));
    expect(error).toMatchObject({ name });
    expect(error.requestId).toBe(sentIds(api.seen).at(-1));
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ requestId: error.requestId });
  });

  it("a timeout", async () => {
    const api = scriptedClient(
      { "GET /v1/payin/pi_1": [{ hang: true }, { hang: true }] },
      { timeoutMs: 10, maxRetries: 1 },
    );
    const error = await caught(api.paykit.payins.retrieve("pi_1"));
    expect(error).toMatchObject({ name: "PaykitTimeoutError" });
    expect(error.requestId).toBe(sentIds(api.seen)[1]);
  });

  it("a payin whose answer was lost names the attempt that may have created it", async () => {
    const api = scriptedClient({ "POST /v1/payin": [{ reject: fetchFailed("ECONNRESET") }] });
    const error = await caught(api.paykit.payins.create({ ...payinBase, paymentMethod: "PIX" }));
    expect(error.requestId).toBe(sentIds(api.seen)[0]);
  });

  it("a call aborted while in flight names that attempt; one aborted before sending names none", async () => {
    const inFlight = scriptedClient({ "GET /v1/payin/pi_1": [{ hang: true }] });
    const controller = new AbortController();
    const pending = caught(inFlight.paykit.payins.retrieve("pi_1", { signal: controller.signal }));
    while (inFlight.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    expect(await pending).toMatchObject({ code: "ABORTED", requestId: sentIds(inFlight.seen)[0] });

    const before = scriptedClient({});
    const error = await caught(before.paykit.payins.retrieve("pi_1", { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: "ABORTED", requestId: undefined });
    expect(before.seen).toHaveLength(0);
  });

  it("a request refused before sending has no id: nothing was sent", async () => {
    const api = scriptedClient({});
    const error = await caught(api.paykit.payouts.create({ ...payoutRequest, amount: -1 }));
    expect(error).toMatchObject({ name: "PaykitValidationError", requestId: undefined });
    expect(await caught(api.paykit.payins.retrieve(".."))).toMatchObject({ requestId: undefined });
    expect(api.seen).toHaveLength(0);
  });
});

describe("a payout whose POST answer was lost", () => {
  it("the lookup event names the lost POST's id; withResponse() is the lookup's answer", async () => {
    const found = payoutRecord({ referenceId: payoutRequest.referenceId });
    const api = scriptedClient({
      "POST /v1/payout": [{ reject: fetchFailed("ECONNRESET") }],
      "GET /v1/payout": [ok(payoutPage([found]))],
    });
    const call = api.paykit.payouts.create(payoutRequest);
    const [{ data, response, requestId }, copy] = await Promise.all([call.withResponse(), call.asResponse()]);
    const [post, lookup] = api.seen;
    expect(data).toEqual(found);
    expect(api.lookups).toEqual([
      expect.objectContaining({ found: true, requestId: post?.headers.get("x-request-id") }),
    ]);
    expect(requestId).toBe(lookup?.headers.get("x-request-id"));
    expect(response.status).toBe(200);
    expect(copy.url).toBe(lookup?.url);
    expect(await copy.json()).toEqual(payoutPage([found]));
  });

  it("when the lookup finds none and the resend is answered, withResponse() is the resend's answer", async () => {
    const created = payoutRecord({ referenceId: payoutRequest.referenceId });
    const api = scriptedClient({
      "POST /v1/payout": [unavailable, ok(created, 201)],
      "GET /v1/payout": [ok(payoutPage([]))],
    });
    const { response, requestId } = await api.paykit.payouts.create(payoutRequest).withResponse();
    expect(response.status).toBe(201);
    expect(requestId).toBe(api.seen[2]?.headers.get("x-request-id"));
  });

  it("when the lookup fails, the error names the lost POST", async () => {
    const api = scriptedClient(
      {
        "POST /v1/payout": [{ reject: fetchFailed("ECONNRESET") }],
        "GET /v1/payout": [unavailable],
      },
      { maxRetries: 0 },
    );
    const error = await caught(api.paykit.payouts.create(payoutRequest));
    expect(error.requestId).toBe(api.seen[0]?.headers.get("x-request-id"));
  });
});
