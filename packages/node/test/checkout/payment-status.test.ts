import { samplePayin } from "@paykit/mock-server";
import { parseWebhook } from "@paykit/webhooks";
import { EventSource } from "eventsource";
import { describe, expect, it } from "vitest";
import { createPaymentStatus, eventIdOf, memoryStatusStore } from "../../src/checkout/index.js";
import { PaykitConfigError } from "../../src/index.js";
import { type Endpoint, eventually, openRaw, SHOPPER, startEndpoint, until } from "./endpoint.js";

async function pendingPix(endpoint: Endpoint) {
  const payin = await endpoint.paykit.payins.create(
    samplePayin("PIX", { webhookUrl: "https://merchant.test/hooks" }),
  );
  endpoint.allow(payin.id);
  return payin;
}

async function getJson(url: string, headers: Record<string, string> = SHOPPER) {
  const response = await fetch(url, { headers: { accept: "application/json", ...headers } });
  return { response, text: await response.text() };
}

/** The mock's last delivery (after the control call that made it), as received. */
async function lastDelivery(endpoint: Endpoint) {
  await endpoint.api.control.flushWebhooks();
  const delivery = endpoint.deliveries.at(-1);
  if (!delivery) throw new Error("the mock sent no webhook");
  return delivery;
}

function eventSource(url: string) {
  return new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...SHOPPER } }),
  });
}

/** Nothing of a stream stays behind on the instance: no stream, no watched payin (so no poll timer). */
async function expectIdle(endpoint: Endpoint): Promise<void> {
  await until(() => endpoint.status.stats().openStreams === 0, "every stream to be released");
  expect(endpoint.status.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
}

describe("createPaymentStatus: JSON over real node:http", () => {
  it("answers exactly { id, status, paymentMethod, updatedAt }, uncached, and follows the payin", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const { response, text } = await getJson(endpoint.urlOf(payin.id));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["id", "status", "paymentMethod", "updatedAt"]);
    expect(body).toMatchObject({ id: payin.id, status: "PENDING", paymentMethod: "PIX" });
    await endpoint.api.control.payPayin(payin.id);
    const paid = await eventually(
      () => getJson(endpoint.urlOf(payin.id)),
      ({ text }) => JSON.parse(text).status === "APPROVED",
      "the JSON answer to show APPROVED",
    );
    expect(JSON.parse(paid.text).updatedAt).not.toBe(body.updatedAt);
  });

  it("adds only the fields the merchant opted into", async () => {
    await using endpoint = await startEndpoint({ fields: ["amount", "referenceId"] });
    const payin = await pendingPix(endpoint);
    const body = JSON.parse((await getJson(endpoint.urlOf(payin.id))).text);
    expect(Object.keys(body)).toEqual([
      "id",
      "status",
      "paymentMethod",
      "updatedAt",
      "amount",
      "referenceId",
    ]);
    expect(body).toMatchObject({ amount: payin.amount, referenceId: payin.referenceId });
  });

  it("answers 404 identically for an unknown id, a malformed id and a payin authorize refuses", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const other = await endpoint.paykit.payins.create(samplePayin("PIX")); // exists, not maria's
    const answers = await Promise.all(
      [
        endpoint.urlOf("pi_01JD0000000000000000000000"), // unknown (authorize would not allow it either)
        endpoint.urlOf("pi_../../payout"), // malformed
        endpoint.urlOf(other.id), // refused
      ].map(async (url) => {
        const { response, text } = await getJson(url);
        return { status: response.status, type: response.headers.get("content-type"), text };
      }),
    );
    expect(answers[0]).toMatchObject({ status: 404 });
    expect(JSON.parse(answers[0]?.text ?? "")).toMatchObject({ code: "NOT_FOUND" });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // The same for a stream request, and an unknown id that authorize allows gets it too.
    endpoint.allow("pi_01JD0000000000000000000000");
    for (const url of [endpoint.urlOf(other.id), endpoint.urlOf("pi_01JD0000000000000000000000")]) {
      const stream = await openRaw(url);
      await until(stream.ended, "the 404's body");
      expect({ status: stream.response.status, text: stream.text() }).toEqual({
        status: 404,
        text: answers[0]?.text,
      });
    }
    expect((await getJson(endpoint.urlOf(payin.id))).response.status).toBe(200);
    await expectIdle(endpoint);
  });

  it("answers 400 without an id, 405 to a POST, and a HEAD without a body", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const missing = await getJson(endpoint.urlOf("").replace("?id=", ""));
    expect(missing.response.status).toBe(400);
    expect(JSON.parse(missing.text)).toMatchObject({ code: "INVALID_DATA" });
    const post = await fetch(endpoint.urlOf(payin.id), { method: "POST", headers: SHOPPER });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const head = await fetch(endpoint.urlOf(payin.id), { method: "HEAD", headers: SHOPPER });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers 502 PROVIDER_ERROR when the service fails the read", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    await endpoint.api.control.addFault({ method: "GET", path: `/payin/${payin.id}`, status: 500 });
    const { response, text } = await getJson(endpoint.urlOf(payin.id));
    expect(response.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(text).not.toContain(payin.id);
  });
});

describe("createPaymentStatus: server-sent events over real node:http", () => {
  it("streams retry, id and data, then ends after the final status (read raw)", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(payin.id));
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers.get("cache-control")).toBe("no-store");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    await until(() => stream.events().length === 1, "the first event");
    const [pending] = stream.events();
    expect(stream.text()).toBe(
      `retry: 300\n\nid: PENDING.${pending?.updatedAt}\ndata: ${JSON.stringify(pending)}\n\n`,
    );
    expect(endpoint.status.stats()).toEqual({ openStreams: 1, watchedPayins: 1 });
    await endpoint.api.control.payPayin(payin.id);
    await until(stream.ended, "the server to end the stream");
    expect(stream.events().map((e) => e.status)).toEqual(["PENDING", "APPROVED"]);
    expect(stream.text()).toContain(`id: APPROVED.${stream.events()[1]?.updatedAt}\n`);
    await expectIdle(endpoint);
  });

  it("an EventSource gets each status once with its event id; the page closes it on the final one", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const source = eventSource(endpoint.urlOf(payin.id));
    const messages: MessageEvent[] = [];
    source.onmessage = (message) => {
      messages.push(message);
      if (JSON.parse(message.data).status === "APPROVED") source.close();
    };
    try {
      await until(() => messages.length === 1, "the PENDING event");
      await endpoint.api.control.payPayin(payin.id);
      await until(() => messages.length === 2, "the APPROVED event");
      const statuses = messages.map((m) => JSON.parse(m.data));
      expect(statuses.map((s) => s.status)).toEqual(["PENDING", "APPROVED"]);
      expect(messages.map((m) => m.lastEventId)).toEqual(statuses.map(eventIdOf));
      await expectIdle(endpoint);
    } finally {
      source.close();
    }
  });

  it("an EventSource whose connection drops resumes with Last-Event-ID and is not sent the same status again", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const source = eventSource(endpoint.urlOf(payin.id));
    const statuses: string[] = [];
    source.onmessage = (message) => {
      statuses.push(JSON.parse(message.data).status);
      if (statuses.at(-1) === "APPROVED") source.close();
    };
    try {
      await until(() => statuses.length === 1, "the PENDING event");
      const pendingId = eventIdOf((await endpoint.paykit.payins.retrieve(payin.id)) as never);
      endpoint.server.closeAllConnections(); // a proxy cutting the connection
      await until(() => endpoint.lastEventIds.includes(pendingId), "the reconnection with Last-Event-ID");
      await until(() => endpoint.status.stats().openStreams === 1, "the dropped stream to be released");
      await endpoint.api.control.payPayin(payin.id);
      await until(() => statuses.length === 2, "the APPROVED event");
      expect(statuses).toEqual(["PENDING", "APPROVED"]);
      await expectIdle(endpoint);
    } finally {
      source.close();
    }
  });

  it("Last-Event-ID of the current status sends nothing new; of the final status, ends at once", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const pendingId = eventIdOf((await endpoint.paykit.payins.retrieve(payin.id)) as never);
    const resumed = await openRaw(endpoint.urlOf(payin.id), { "last-event-id": pendingId });
    await until(() => resumed.text().startsWith("retry: 300\n\n"), "the retry line");
    await endpoint.api.control.payPayin(payin.id);
    await until(resumed.ended, "the stream to end after APPROVED");
    expect(resumed.events().map((e) => e.status)).toEqual(["APPROVED"]);
    const approvedId = `APPROVED.${resumed.events()[0]?.updatedAt}`;
    const after = await openRaw(endpoint.urlOf(payin.id), { "last-event-id": approvedId });
    await until(after.ended, "the stream of a page that has the final status to end");
    expect(after.text()).toBe("retry: 300\n\n");
    await expectIdle(endpoint);
  });

  it("a page that disconnects leaves no stream, no watched payin and no poll behind", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(payin.id));
    await until(() => endpoint.reads.length >= 3, "the instance to poll the watched payin");
    stream.abort();
    await expectIdle(endpoint);
    const reads = endpoint.reads.length;
    await new Promise((resolve) => setTimeout(resolve, 300)); // six poll intervals
    expect(endpoint.reads.length).toBeLessThanOrEqual(reads + 1); // at most one already in flight
  });

  it("sends a keep-alive comment while nothing changes", async () => {
    await using endpoint = await startEndpoint({ keepAliveMs: 50 });
    const payin = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(payin.id));
    await until(() => stream.text().includes(": keep-alive\n\n"), "a keep-alive comment");
    stream.abort();
    await expectIdle(endpoint);
  });

  it("answers 503 with Retry-After past maxStreams, and takes a stream again once one closed", async () => {
    await using endpoint = await startEndpoint({ maxStreams: 2 });
    const payin = await pendingPix(endpoint);
    const first = await openRaw(endpoint.urlOf(payin.id));
    const second = await openRaw(endpoint.urlOf(payin.id));
    const third = await openRaw(endpoint.urlOf(payin.id));
    expect([first.response.status, second.response.status, third.response.status]).toEqual([200, 200, 503]);
    expect(third.response.headers.get("retry-after")).toBe("1");
    expect((await getJson(endpoint.urlOf(payin.id))).response.status).toBe(200); // JSON is not a stream
    first.abort();
    await until(() => endpoint.status.stats().openStreams === 1, "the first stream to be released");
    const again = await openRaw(endpoint.urlOf(payin.id));
    expect(again.response.status).toBe(200);
    second.abort();
    again.abort();
    await expectIdle(endpoint);
  });

  it("many streams of one payin on one instance share one poll per interval", async () => {
    await using endpoint = await startEndpoint({ pollIntervalMs: 100, maxPollIntervalMs: 100 });
    const payin = await pendingPix(endpoint);
    const streams = await Promise.all(Array.from({ length: 20 }, () => openRaw(endpoint.urlOf(payin.id))));
    const start = endpoint.reads.length;
    await until(() => endpoint.reads.length >= start + 5, "five polls");
    const polls = endpoint.reads.slice(start);
    const gaps = polls.slice(1).map((at, i) => at - (polls[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(80);
    await endpoint.api.control.payPayin(payin.id);
    await until(() => streams.every((s) => s.ended()), "every stream to end");
    expect(new Set(streams.map((s) => s.events().at(-1)?.status))).toEqual(new Set(["APPROVED"]));
    await expectIdle(endpoint);
  });

  it("notify hands a verified webhook to the streams at once, without a poll", async () => {
    // A minute between polls: only notify can end this stream within the test.
    await using endpoint = await startEndpoint({ pollIntervalMs: 60_000 });
    const payin = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(payin.id));
    await until(() => stream.events().length === 1, "the PENDING event");
    const readsBefore = endpoint.reads.length;
    await endpoint.api.control.payPayin(payin.id);
    const delivery = await lastDelivery(endpoint);
    await endpoint.status.notify(await endpoint.paykit.webhooks.parse(delivery.body, delivery.headers));
    await until(stream.ended, "the stream to end");
    expect(stream.events().map((e) => e.status)).toEqual(["PENDING", "APPROVED"]);
    expect(endpoint.reads.length).toBe(readsBefore);
    // The JSON answer now comes from the store: still no read.
    const { text } = await getJson(endpoint.urlOf(payin.id));
    expect(JSON.parse(text)).toMatchObject({ status: "APPROVED" });
    expect(endpoint.reads.length).toBe(readsBefore);
    await expectIdle(endpoint);
  });

  it("notify wakes payins.waitForFinal of the same client; payout events are ignored", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const waiting = endpoint.paykit.payins.waitForFinal(payin.id, { pollIntervalMs: 60_000 });
    await until(() => endpoint.answers.length === 1, "the answer to the wait's first read");
    await endpoint.api.control.payPayin(payin.id);
    // Read without verification, so only notify (not webhooks.parse) tells the client.
    const event = parseWebhook((await lastDelivery(endpoint)).body);
    await endpoint.status.notify(event);
    await expect(waiting).resolves.toMatchObject({ id: payin.id, status: "APPROVED" });
    const payoutEvent = parseWebhook({
      id: "po_1",
      externalId: null,
      status: "COMPLETED",
      amount: 1000,
      currency: "BRL",
      pixKey: "maria@example.com",
      pixKeyType: "EMAIL",
      referenceId: "w-1",
      beneficiaryName: "Maria",
      beneficiaryDocument: "12345678909",
      feeAmount: 100,
      netAmount: 900,
      failureCode: null,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    await expect(endpoint.status.notify(payoutEvent)).resolves.toBeUndefined();
  });

  it("close() ends every open stream, and the endpoint answers 503 after", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(payin.id));
    await until(() => stream.events().length === 1, "the PENDING event");
    await endpoint.status.close();
    await until(stream.ended, "the stream to end");
    expect(endpoint.status.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
    expect((await getJson(endpoint.urlOf(payin.id))).response.status).toBe(503);
  });
});

describe("createPaymentStatus: construction", () => {
  const paykit = { payins: { retrieve: async () => ({}) } } as never;

  it("refuses to start without authorize, naming it", () => {
    expect(() => createPaymentStatus({ paykit } as never)).toThrow(PaykitConfigError);
    expect(() => createPaymentStatus({ paykit } as never)).toThrow(/authorize is required/);
  });

  it.each([
    [{ fields: ["customer"] }, /fields/],
    [{ maxStreams: 0 }, /maxStreams/],
    [{ pollIntervalMs: 1.5 }, /pollIntervalMs/],
  ])("refuses %j", (options, message) => {
    expect(() => createPaymentStatus({ paykit, authorize: () => true, ...(options as object) })).toThrow(
      message,
    );
  });
});

describe("createPaymentStatus: instances sharing a store", () => {
  it("endpoints of two accounts on one store: each answers 404 for the other's payin, as JSON and as a stream", async () => {
    const store = memoryStatusStore();
    try {
      await using a = await startEndpoint({ store });
      await using b = await startEndpoint({ store });
      const payin = await pendingPix(b);
      expect((await getJson(b.urlOf(payin.id))).response.status).toBe(200); // B read it: the store knows it
      a.allow(payin.id); // A's authorize says yes: the account's ownership must still say no
      expect((await getJson(a.urlOf(payin.id))).response.status).toBe(404);
      const stream = await fetch(a.urlOf(payin.id), { headers: { ...SHOPPER, accept: "text/event-stream" } });
      await stream.body?.cancel();
      expect(stream.status).toBe(404);
    } finally {
      await store.close();
    }
  });

  it("two endpoints sharing one store: a notify on one reaches the other's streams", async () => {
    const store = memoryStatusStore();
    await using a = await startEndpoint({ store, pollIntervalMs: 60_000 });
    const payin = await pendingPix(a);
    const b = createPaymentStatus({ paykit: a.paykit, store, authorize: () => true, pollIntervalMs: 60_000 });
    try {
      const response = await b.handler(
        new Request(a.urlOf(payin.id), { headers: { accept: "text/event-stream" } }),
      );
      const reading = response.text(); // the stream ends after the final status
      await a.api.control.payPayin(payin.id);
      const delivery = await lastDelivery(a);
      await a.status.notify(await a.paykit.webhooks.parse(delivery.body, delivery.headers));
      const text = await reading;
      expect(text).toContain('"status":"APPROVED"');
      expect(b.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
    } finally {
      await b.close();
      await store.close();
    }
  });
});
