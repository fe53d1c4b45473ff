// withResponse() and request ids against the real mock, over node:http and through msw: the id the
// client sent is the one the mock answers back in X-Request-Id, on every call, composite ones included.
import { describe, expect, it } from "vitest";
import type { Paykit, RequestEvent } from "../../src/index.js";
import { startMock, TRANSPORTS } from "../support/mock.js";
import { payout, pixPayin } from "../support/requests.js";

type ConfirmEvent = Parameters<Paykit["webhooks"]["confirm"]>[0];
const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

describe.each(TRANSPORTS)("raw responses over %s", (transport) => {
  it("every call: the record, the mock's answer, and the id the mock saw", async () => {
    await using api = await startMock(transport);
    const created = await api.paykit.payins.create(pixPayin({ amount: 4_321 })).withResponse();
    expect(created.response.status).toBe(201);
    expect(created.requestId).toMatch(REQUEST_ID);
    expect(created.response.headers.get("x-request-id")).toBe(created.requestId);
    expect(created.response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(created.data.pix.qrcode).toMatch(/^000201/);

    const read = await api.paykit.payins.retrieve(created.data.id).withResponse();
    expect(read.data).toMatchObject({ id: created.data.id, amount: 4_321 });
    expect(read.response.headers.get("x-request-id")).toBe(read.requestId);
    expect(read.requestId).not.toBe(created.requestId);

    const request = payout();
    const sent = await api.paykit.payouts.create(request).withResponse();
    expect(sent.response.status).toBe(201);
    expect(sent.response.headers.get("x-request-id")).toBe(sent.requestId);

    const page = await api.paykit.payouts.list({ referenceId: request.referenceId }).asResponse();
    expect(page.status).toBe(200);
    expect(page.headers.get("x-request-id")).toMatch(REQUEST_ID);
    expect(await page.json()).toMatchObject({ data: [{ id: sent.data.id }] });

    const found = await api.paykit.payouts.findByReferenceId(request.referenceId).withResponse();
    expect(found.data?.id).toBe(sent.data.id);
    expect(found.response.headers.get("x-request-id")).toBe(found.requestId);
  });

  it("waitForFinal: the answer of the read that saw the payin paid", async () => {
    await using api = await startMock(transport);
    const created = await api.paykit.payins.create(pixPayin());
    const waiting = api.paykit.payins.waitForFinal(created.id, { pollIntervalMs: 20 }).withResponse();
    await api.control.payPayin(created.id);
    const { data, response, requestId } = await waiting;
    expect(data.status).toBe("APPROVED");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe(requestId);
  });

  it("webhooks.confirm: the read of the payout by its referenceId", async () => {
    await using api = await startMock(transport);
    const created = await api.paykit.payouts.create(payout());
    const event = { kind: "payout", id: created.id, data: created } as unknown as ConfirmEvent;
    const { data, response, requestId } = await api.paykit.webhooks.confirm(event).withResponse();
    expect(data.id).toBe(created.id);
    expect(response.url).toContain(`referenceId=${created.referenceId}`);
    expect(response.headers.get("x-request-id")).toBe(requestId);
  });

  it("a payout whose answer was cut: the lookup that found it is the response", async () => {
    await using api = await startMock(transport);
    const attempts: RequestEvent[] = [];
    const paykit = api.client({ hooks: { onRequest: (e) => void attempts.push(e) } });
    await api.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
    const request = payout();
    const call = paykit.payouts.create(request);
    const [{ data, response, requestId }, copy] = await Promise.all([call.withResponse(), call.asResponse()]);
    expect(data.referenceId).toBe(request.referenceId);
    expect(attempts.map((e) => `${e.method} ${e.path.split("?")[0]}`)).toEqual(["POST payout", "GET payout"]);
    expect(requestId).toBe(attempts[1]?.requestId);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe(requestId);
    expect(await copy.json()).toMatchObject({ data: [{ id: data.id }] });
  });

  it("an error answer carries the id the mock answered back", async () => {
    await using api = await startMock(transport);
    const error = await api.paykit.payins.retrieve("pi_unknown").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "NotFoundError", requestId: expect.stringMatching(REQUEST_ID) });
    const { headers, requestId } = error as { headers: Headers; requestId: string };
    expect(headers.get("x-request-id")).toBe(requestId);
  });
});
