// withResponse() and asResponse() on every call's promise: the record as awaiting gives it, the HTTP
// answer it was read from, and the attempt's request id; for calls made of several requests, the
// answer the record came from (docs/decisions/raw-responses.md).
import { describe, expect, it } from "vitest";
import type { Paykit } from "../../src/index.js";
import { scriptedClient } from "../support/client.js";
import type { SeenRequest, Step } from "../support/fake-fetch.js";
import { KEYS, payinBase, payoutPage, payoutRecord, payoutRequest, pixCreated } from "../support/fixtures.js";

const ok = (body: unknown, status = 200, headers?: Record<string, string>): Step => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});
const payin = (status: string) => ({
  ...pixCreated,
  status,
  currency: "BRL",
  updatedAt: pixCreated.createdAt,
});
const idOf = (request: SeenRequest | undefined) => request?.headers.get("x-request-id");

async function caught(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected a rejection");
}

type ConfirmEvent = Parameters<Paykit["webhooks"]["confirm"]>[0];

describe("a single request", () => {
  it("withResponse(): the awaited record, the answer's status and headers, the id sent", async () => {
    const record = payin("PENDING");
    const api = scriptedClient({
      "GET /v1/payin/pi_01": [ok(record, 200, { "x-ratelimit-remaining": "99" })],
    });
    const { data, response, requestId } = await api.paykit.payins.retrieve("pi_01").withResponse();
    expect(data).toEqual(record);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("99");
    // the fetch's own Response: its body went into `data`
    expect(response.bodyUsed).toBe(true);
    expect(requestId).toBe(idOf(api.seen[0]));
  });

  it("asResponse(): a copy of the answer whose body reads, with its status, headers and URL", async () => {
    const api = scriptedClient({ "POST /v1/payin": [ok(pixCreated, 201, { "x-shop": "7" })] });
    const response = await api.paykit.payins.create({ ...payinBase, paymentMethod: "PIX" }).asResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-shop")).toBe("7");
    expect(response.url).toBe("https://api.paykit.test/v1/payin");
    expect(await response.json()).toEqual(pixCreated);
  });

  it("every asResponse() is a copy of its own; withResponse() gives one answer, read once", async () => {
    const api = scriptedClient({ "GET /v1/payout": [ok(payoutPage([payoutRecord()]))] });
    const call = api.paykit.payouts.list();
    const [first, second, copyA, copyB, data] = await Promise.all([
      call.withResponse(),
      call.withResponse(),
      call.asResponse(),
      call.asResponse(),
      call,
    ]);
    expect(first.response).toBe(second.response);
    expect(first.data).toBe(data);
    expect(copyA).not.toBe(copyB);
    expect(await copyA.json()).toEqual(data);
    expect(await copyB.json()).toEqual(data);
    expect(first.requestId).toBe(second.requestId);
    expect(api.seen).toHaveLength(1);
  });

  it("findByReferenceId resolving null still has its answer", async () => {
    const api = scriptedClient({ "GET /v1/payout": [ok(payoutPage([]))] });
    const call = api.paykit.payouts.findByReferenceId("nothing");
    const [{ data, response }, copy] = await Promise.all([call.withResponse(), call.asResponse()]);
    expect(data).toBeNull();
    expect(response.status).toBe(200);
    expect(copy.url).toContain("referenceId=nothing");
  });

  it("the call starts when the method is called, awaited or not", async () => {
    const api = scriptedClient({ "POST /v1/payout": [ok(payoutRecord(), 201)] });
    const call = api.paykit.payouts.create(payoutRequest);
    await expect.poll(() => api.seen.length).toBe(1);
    await call;
  });

  it("is a Promise; then, catch and finally give ordinary promises", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_01": [ok(payin("PENDING"))] });
    const call = api.paykit.payins.retrieve("pi_01");
    expect(call).toBeInstanceOf(Promise);
    const chained = call.then((p) => p.id);
    expect(chained).not.toHaveProperty("withResponse");
    expect(await chained).toBe("pi_01");
  });

  it("never holds the request's headers: no Authorization on the Response", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_01": [ok(payin("PENDING"))] });
    const { response } = await api.paykit.payins.retrieve("pi_01").withResponse();
    expect(api.seen[0]?.headers.get("authorization")).toMatch(/^Basic /);
    expect(response.headers.get("authorization")).toBeNull();
    expect([...response.headers.keys()].sort()).toEqual(["content-type"]);
    expect(JSON.stringify([...response.headers])).not.toContain(KEYS.secretKey);
  });
});

describe("a failed call", () => {
  it("withResponse() and asResponse() reject with the call's error, which names the request id", async () => {
    const api = scriptedClient({
      "GET /v1/payin/pi_x": [
        { status: 404, body: { code: "NOT_FOUND", message: "no such payin" }, headers: { "x-trace": "t1" } },
      ],
    });
    const call = api.paykit.payins.retrieve("pi_x");
    const [viaWith, viaAs, direct] = await Promise.all([
      caught(call.withResponse()),
      caught(call.asResponse()),
      caught(call),
    ]);
    expect(viaWith).toBe(direct);
    expect(viaAs).toBe(direct);
    expect(direct).toMatchObject({ name: "NotFoundError", status: 404, requestId: idOf(api.seen[0]) });
    expect((direct.headers as Headers).get("x-trace")).toBe("t1");
  });
});

describe("calls made of several requests: the answer the record came from", () => {
  it("waitForFinal: the read that saw the payin final", async () => {
    const api = scriptedClient({
      "GET /v1/payin/pi_01": [ok(payin("PENDING")), ok(payin("PENDING")), ok(payin("APPROVED"))],
    });
    const call = api.paykit.payins.waitForFinal("pi_01", { pollIntervalMs: 1 });
    const [{ data, response, requestId }, copy] = await Promise.all([call.withResponse(), call.asResponse()]);
    expect(data.status).toBe("APPROVED");
    expect(api.seen).toHaveLength(3);
    expect(requestId).toBe(idOf(api.seen[2]));
    expect(response.status).toBe(200);
    expect(await copy.json()).toMatchObject({ status: "APPROVED" });
  });

  it("waitForFinal that times out: the error names the last read", async () => {
    const api = scriptedClient({
      "GET /v1/payin/pi_01": Array.from({ length: 500 }, () => ok(payin("PENDING"))),
    });
    const error = await caught(
      api.paykit.payins.waitForFinal("pi_01", { pollIntervalMs: 1, timeoutMs: 200 }),
    );
    expect(error).toMatchObject({ name: "PaymentWaitTimeoutError", lastStatus: "PENDING" });
    expect(api.seen.map(idOf)).toContain(error.requestId);
  });

  it("webhooks.confirm of a payin: the read of the payin", async () => {
    const api = scriptedClient({ "GET /v1/payin/pi_01": [ok(payin("APPROVED"))] });
    const event = { kind: "payin", id: "pi_01", data: payin("APPROVED") } as unknown as ConfirmEvent;
    const { data, requestId } = await api.paykit.webhooks.confirm(event).withResponse();
    expect(data).toMatchObject({ id: "pi_01", status: "APPROVED" });
    expect(requestId).toBe(idOf(api.seen[0]));
  });

  it("webhooks.confirm of a payout whose referenceId was reused: the page that held it", async () => {
    const wanted = payoutRecord({ id: "po_old", status: "COMPLETED" });
    const newer = payoutRecord({ id: "po_new" });
    const api = scriptedClient({
      "GET /v1/payout": [
        ok(payoutPage([newer], 1, 1, 2)), // findByReferenceId: the newest is another payout
        ok(payoutPage([newer], 1, 1, 2)), // listAll, page 1
        ok(payoutPage([wanted], 2, 1, 2)), // page 2
      ],
    });
    const event = { kind: "payout", id: "po_old", data: wanted } as unknown as ConfirmEvent;
    const call = api.paykit.webhooks.confirm(event, { maxRetries: 0 });
    const [{ data, requestId }, response] = await Promise.all([call.withResponse(), call.asResponse()]);
    expect(data).toMatchObject({ id: "po_old" });
    // listAll asks for pages of 100: the fake answers whatever page it is asked for
    expect(api.seen).toHaveLength(3);
    expect(requestId).toBe(idOf(api.seen[2]));
    expect(response.url).toContain("page=2");
  });

  it("webhooks.confirm of a payout that is nowhere: the NotFoundError names the last page read", async () => {
    const other = payoutRecord({ id: "po_other" });
    const api = scriptedClient({
      "GET /v1/payout": [ok(payoutPage([other])), ok(payoutPage([other]))],
    });
    const event = { kind: "payout", id: "po_gone", data: other } as unknown as ConfirmEvent;
    const error = await caught(api.paykit.webhooks.confirm(event));
    expect(error).toMatchObject({ name: "NotFoundError", requestId: idOf(api.seen[1]) });
  });
});
