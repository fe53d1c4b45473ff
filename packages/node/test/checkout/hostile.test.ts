// The payment-status endpoint as a hostile tester and a hostile shopper see it, over real node:http on the
// real mock: ids that probe, headers that lie, pages that leave at every stage, stores that fail or hang,
// and what a merchant might wrongly hand to `notify`.
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { samplePayin } from "@paykit/mock-server";
import { parseWebhook } from "@paykit/webhooks";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPaymentStatus,
  eventIdOf,
  memoryStatusStore,
  type PaymentStatusStore,
  toNodeListener,
} from "../../src/checkout/index.js";
import { startMock } from "../support/mock.js";
import { type Endpoint, openRaw, SHOPPER, startEndpoint, until } from "./endpoint.js";
import { refTimers, timerCensus } from "./timer-census.js";

const UNKNOWN = "pi_01JD0000000000000000000000";

// Every rejection nobody handled while this file runs (the endpoint must leave none, whatever fails).
const unhandled: unknown[] = [];
const trap = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", trap));
afterAll(() => void process.off("unhandledRejection", trap));

async function pendingPix(endpoint: Endpoint) {
  const payin = await endpoint.paykit.payins.create(
    samplePayin("PIX", { webhookUrl: "https://merchant.test/hooks" }),
  );
  endpoint.allow(payin.id);
  return payin;
}

/** Everything a client sees of an answer but its Date header. */
async function seen(response: Response) {
  const headers = [...response.headers].filter(([name]) => name !== "date");
  return { status: response.status, headers, body: await response.text() };
}

const baseOf = (endpoint: Endpoint) => endpoint.urlOf("x").split("?")[0] as string;

/** A request fetch will not send (TRACE), through node:http. */
function rawRequest(url: string, method: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers: SHOPPER }, (response) => {
      let body = "";
      response.on("data", (chunk) => {
        body += String(chunk);
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

function eventSource(url: string) {
  return new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...SHOPPER } }),
  });
}

async function expectIdle(endpoint: Endpoint): Promise<void> {
  await until(() => endpoint.status.stats().openStreams === 0, "every stream to be released");
  expect(endpoint.status.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
}

describe("a prober", () => {
  let endpoint: Endpoint;
  beforeAll(async () => {
    endpoint = await startEndpoint();
  });
  afterAll(async () => {
    await endpoint?.[Symbol.asyncDispose]();
  });

  it("gets one byte-identical 404 for every id it may not see, as JSON and as a stream; only an id authorize let through reaches the service", async () => {
    const stranger = await endpoint.paykit.payins.create(samplePayin("PIX"));
    const mine = await pendingPix(endpoint);
    endpoint.allow(UNKNOWN); // a lax authorize: the service itself says this one does not exist
    const base = baseOf(endpoint);
    // [what, the raw query, the service reads it costs]
    const probes: Array<[string, string, number]> = [
      ["another shopper's payin", `id=${stranger.id}`, 0],
      ["an id nobody has, refused", "id=pi_01JD0000000000000000000001", 0],
      ["an id nobody has, authorized", `id=${UNKNOWN}`, 1],
      ["pi_ and 10 KB", `id=pi_${"A".repeat(10_000)}`, 0],
      ["unicode", "id=pi_%E2%9C%93%F0%9F%92%B8", 0],
      ["a path", `id=..%2F..%2Fpayout%2F${mine.id}`, 0],
      ["a lone surrogate", "id=pi_%ED%A0%80", 0],
      ["a NUL after the shopper's id", `id=${mine.id}%00`, 0],
      ["a header injection", `id=${mine.id}%0D%0ASet-Cookie:%20probe=1`, 0],
      ["a space before the shopper's id", `id=%20${mine.id}`, 0],
    ];
    const reference = await seen(
      await fetch(`${base}?${probes[0]?.[1]}`, { headers: { ...SHOPPER, accept: "application/json" } }),
    );
    expect(reference.status).toBe(404);
    expect(JSON.parse(reference.body)).toMatchObject({ code: "NOT_FOUND" });
    for (const accept of ["application/json", "text/event-stream"]) {
      for (const [what, query, reads] of probes) {
        const before = endpoint.reads.length;
        const answer = await seen(await fetch(`${base}?${query}`, { headers: { ...SHOPPER, accept } }));
        expect({ what, accept, ...answer }).toEqual({ what, accept, ...reference });
        expect({ what, reads: endpoint.reads.length - before }).toEqual({ what, reads });
      }
    }
    // Nothing of the probe comes back, in a header or the body.
    expect(JSON.stringify(reference)).not.toMatch(/probe|pi_|%/);
    await expectIdle(endpoint);
  });

  it.each([
    ["no id", () => ""],
    ["an empty id", () => "id="],
    ["the id under another name", (mine: string) => `ID=${mine}`],
    ["the id twice, the shopper's first", (mine: string, other: string) => `id=${mine}&id=${other}`],
    ["the id twice, the shopper's second", (mine: string, other: string) => `id=${other}&id=${mine}`],
    ["the shopper's id twice", (mine: string) => `id=${mine}&id=${mine}`],
  ])("answers 400 INVALID_DATA to %s", async (_what, query) => {
    const stranger = await endpoint.paykit.payins.create(samplePayin("PIX"));
    const mine = await pendingPix(endpoint);
    for (const accept of ["application/json", "text/event-stream"]) {
      const response = await fetch(`${baseOf(endpoint)}?${query(mine.id, stranger.id)}`, {
        headers: { ...SHOPPER, accept },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "INVALID_DATA" });
    }
    await expectIdle(endpoint);
  });

  it("gets 405 with Allow for every other method, 501 for one a web Request cannot carry, and a HEAD opens no stream", async () => {
    const mine = await pendingPix(endpoint);
    const url = endpoint.urlOf(mine.id);
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const response = await fetch(url, {
        method,
        headers: { ...SHOPPER, "content-type": "application/json" },
        ...(method === "OPTIONS" ? {} : { body: JSON.stringify({ id: mine.id }) }),
      });
      expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({
        method,
        status: 405,
        allow: "GET, HEAD",
      });
      expect(await response.text()).not.toContain(mine.id);
    }
    // TRACE passes node:http but no web-standard Request may carry it: answered, never a 500.
    expect(await rawRequest(url, "TRACE")).toMatchObject({ status: 501 });
    const head = await fetch(url, { method: "HEAD", headers: { ...SHOPPER, accept: "text/event-stream" } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const refused = await fetch(endpoint.urlOf(UNKNOWN.replace("0000", "9999")), { method: "HEAD" });
    expect(refused.status).toBe(404);
    await expectIdle(endpoint);
  });

  it.each([
    ["text/event-stream", "stream"],
    ["TEXT/Event-Stream; charset=utf-8", "stream"],
    ["application/json;q=0.5, text/event-stream", "stream"],
    ["text/event-stream, */*;q=0.1", "stream"],
    ["text/event-stream;q=0, application/json", "json"],
    ["text/event-stream; q=0.0", "json"],
    ["application/json, text/event-stream;q=0.5", "json"],
    ["*/*", "json"],
    ["text/*", "json"],
    ["text/event-streams", "json"],
    ["application/json; profile=text/event-stream", "json"],
    ["", "json"],
  ])("Accept %j gets %s", async (accept, expected) => {
    const mine = await pendingPix(endpoint);
    const controller = new AbortController();
    const response = await fetch(endpoint.urlOf(mine.id), {
      headers: { ...SHOPPER, accept },
      signal: controller.signal,
    });
    const type = response.headers.get("content-type");
    controller.abort();
    expect({ status: response.status, type }).toEqual({
      status: 200,
      type: expected === "stream" ? "text/event-stream; charset=utf-8" : "application/json; charset=utf-8",
    });
    await expectIdle(endpoint);
  });
});

describe("Last-Event-ID from a page that lies", () => {
  it("a malformed, huge, foreign or future one breaks nothing, and the final status always reaches the page and ends its stream", async () => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    const current = eventIdOf((await endpoint.paykit.payins.retrieve(payin.id)) as never);
    const both = ["PENDING", "APPROVED"];
    const cases: Array<[string, string, string[]]> = [
      ["empty", "", both],
      ["garbage", "garbage", both],
      ["huge", `PENDING.${"9".repeat(8_000)}`, both],
      ["not a date", "PENDING.yesterday", both],
      ["latin-1 bytes", "PENDING.\u00e9\u00ff", both],
      ["a final one from the past", "EXPIRED.2000-01-01T00:00:00.000Z", both],
      ["the current one", current, ["APPROVED"]],
      ["from the future", "PENDING.2999-12-31T23:59:59.999Z", ["APPROVED"]],
      ["a final one from the future", "REFUSED.2999-12-31T23:59:59.999Z", ["APPROVED"]],
    ];
    const streams = await Promise.all(
      cases.map(([, lastEventId]) => openRaw(endpoint.urlOf(payin.id), { "last-event-id": lastEventId })),
    );
    try {
      expect(streams.map((stream) => stream.response.status)).toEqual(cases.map(() => 200));
      await until(
        () => streams.every((stream, i) => cases[i]?.[2][0] !== "PENDING" || stream.events().length > 0),
        "the PENDING event on the streams that lack it",
      );
      await endpoint.api.control.payPayin(payin.id);
      await until(() => streams.every((stream) => stream.ended()), "every stream to end after APPROVED");
      expect(cases.map(([what], i) => [what, streams[i]?.events().map((e) => e.status)])).toEqual(
        cases.map(([what, , statuses]) => [what, statuses]),
      );
      await expectIdle(endpoint);
    } finally {
      for (const stream of streams) stream.abort();
    }
  });
});

/** A store whose every call fails, as a Redis that went away. */
function downStore(): PaymentStatusStore {
  const fail = () => Promise.reject(new Error("the status store is down"));
  return { publish: fail, subscribe: fail, latest: fail, claimPoll: fail, close: fail };
}

/** A store whose every call never answers, as a network partition without a reset. */
function hungStore(): PaymentStatusStore {
  const never = () => new Promise<never>(() => undefined);
  return { publish: never, subscribe: never, latest: never, claimPoll: never, close: never };
}

describe("a status store that fails", () => {
  it.each([
    ["rejects every call", downStore, false],
    ["never answers", hungStore, false],
    ["rejects every call, with an onError that throws", downStore, true],
  ])(
    "one that %s: JSON, a real EventSource and notify still work, by the instance's own polls",
    async (_what, store, throwingOnError) => {
      const errors: unknown[] = [];
      await using endpoint = await startEndpoint({
        store: store(),
        storeTimeoutMs: 100,
        onError: (error) => {
          errors.push(error);
          if (throwingOnError) throw new Error("the merchant's logger broke");
        },
      });
      const payin = await pendingPix(endpoint);
      const json = await fetch(endpoint.urlOf(payin.id), {
        headers: { ...SHOPPER, accept: "application/json" },
        signal: AbortSignal.timeout(10_000),
      });
      expect(json.status).toBe(200);
      expect(await json.json()).toMatchObject({ id: payin.id, status: "PENDING" });

      const source = eventSource(endpoint.urlOf(payin.id));
      const statuses: string[] = [];
      const failures: unknown[] = [];
      source.onerror = (error) => failures.push(error);
      source.onmessage = (message) => {
        statuses.push(JSON.parse(message.data).status);
        if (statuses.at(-1) === "APPROVED") source.close();
      };
      try {
        await until(() => statuses.length === 1, "the PENDING event");
        await endpoint.api.control.payPayin(payin.id);
        await until(() => statuses.at(-1) === "APPROVED", "the APPROVED event, from a poll");
      } finally {
        source.close();
      }
      expect(statuses).toEqual(["PENDING", "APPROVED"]);
      expect(failures).toEqual([]);

      await endpoint.api.control.flushWebhooks();
      const delivery = endpoint.deliveries.at(-1);
      if (!delivery) throw new Error("the mock sent no webhook");
      await expect(endpoint.status.notify(parseWebhook(delivery.body))).resolves.toBeUndefined();
      await expectIdle(endpoint);
      await expect(endpoint.status.close()).resolves.toBeUndefined();
      expect(errors.length).toBeGreaterThan(0);
      expect(unhandled).toEqual([]);
    },
  );
});

describe("a shopper who reloads", () => {
  it("20 pages asking at once, with no store to answer from, make one read of the service", async () => {
    await using endpoint = await startEndpoint({ store: downStore() });
    const payin = await pendingPix(endpoint);
    // The read takes 3 s, so every page arrives while it is in flight.
    await endpoint.api.control.addFault({ method: "GET", path: `/payin/${payin.id}`, latencyMs: 3_000 });
    const before = endpoint.reads.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(endpoint.urlOf(payin.id), { headers: { ...SHOPPER, accept: "application/json" } }).then(
          (response) => response.status,
        ),
      ),
    );
    expect(new Set(answers)).toEqual(new Set([200]));
    expect(endpoint.reads.length - before).toBe(1);
  });
});

describe("maxStreams under failures", () => {
  it("counts slots exactly when authorize throws, the store fails now and then, and pages leave", async () => {
    const store = memoryStatusStore();
    let calls = 0;
    const flaky: PaymentStatusStore = {
      publish: (status, options) => store.publish(status, options),
      // Every other call of each kind fails: a store that comes and goes.
      subscribe: (listener) => (++calls % 2 ? Promise.reject(new Error("flap")) : store.subscribe(listener)),
      latest: (id) => (++calls % 2 ? Promise.reject(new Error("flap")) : store.latest(id)),
      claimPoll: (id, ms) => store.claimPoll(id, ms),
      close: () => store.close(),
    };
    await using endpoint = await startEndpoint({
      maxStreams: 2,
      store: flaky,
      authorize: (request) => {
        if (request.headers.has("x-throw")) throw new Error("the session store is down");
        return true;
      },
    });
    const payin = await pendingPix(endpoint);
    const url = endpoint.urlOf(payin.id);
    const thrown = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(url, { headers: { accept: "text/event-stream", "x-throw": "1" } }).then((r) => r.status),
      ),
    );
    expect(new Set(thrown)).toEqual(new Set([500]));
    expect(endpoint.status.stats().openStreams).toBe(0);
    for (let round = 0; round < 5; round++) {
      const streams = await Promise.all([openRaw(url), openRaw(url), openRaw(url)]);
      expect(streams.map((stream) => stream.response.status).sort()).toEqual([200, 200, 503]);
      expect(endpoint.status.stats()).toEqual({ openStreams: 2, watchedPayins: 1 });
      for (const stream of streams) stream.abort();
      await expectIdle(endpoint);
    }
    await endpoint.status.close();
    await endpoint.status.close();
    expect(endpoint.status.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
    expect(unhandled).toEqual([]);
  });
});

describe("notify given what a merchant might wrongly pass", () => {
  it.each([
    ["the raw body, as text", (body: string) => body],
    ["the raw body, parsed as JSON", (body: string) => JSON.parse(body)],
    ["nothing", () => undefined],
    ["a payin event without its data", (body: string) => ({ kind: "payin", id: JSON.parse(body).id })],
    [
      "a payin event without updatedAt",
      (body: string) => ({
        kind: "payin",
        id: JSON.parse(body).id,
        data: { ...JSON.parse(body), updatedAt: "" },
      }),
    ],
  ])("refuses %s with a TypeError that names webhooks.parse", async (_what, wrong) => {
    await using endpoint = await startEndpoint();
    const payin = await pendingPix(endpoint);
    await endpoint.api.control.payPayin(payin.id);
    await endpoint.api.control.flushWebhooks();
    const body = endpoint.deliveries.at(-1)?.body ?? "";
    const error = await endpoint.status.notify(wrong(body) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error).message)).toMatch(/webhooks\.parse/);
  });

  it("shows pages what an event says (hence: verify first), while waitForFinal only takes it as a cue to read", async () => {
    // Five minutes between polls: within this test, only events move anything.
    await using endpoint = await startEndpoint({ pollIntervalMs: 300_000 });
    const target = await pendingPix(endpoint);
    const paid = await pendingPix(endpoint);
    await endpoint.api.control.payPayin(paid.id);
    await endpoint.api.control.flushWebhooks();
    // A forgery: a real APPROVED body with another payin's id, read without its signature.
    const forged = parseWebhook({ ...JSON.parse(endpoint.deliveries.at(-1)?.body ?? "{}"), id: target.id });
    let settled = false;
    const waiting = endpoint.paykit.payins.waitForFinal(target.id, { pollIntervalMs: 300_000 });
    void waiting.finally(() => {
      settled = true;
    });
    await until(() => endpoint.answers.length >= 1, "the wait's first read");
    const stream = await openRaw(endpoint.urlOf(target.id));
    try {
      await until(() => stream.events().length === 1, "the PENDING event");
      const answers = endpoint.answers.length;
      await endpoint.status.notify(forged);
      await until(() => stream.ended(), "the page to be shown the forged status");
      expect(stream.events().map((e) => e.status)).toEqual(["PENDING", "APPROVED"]);
      // The wait read the payin again on that cue, saw PENDING, and goes on waiting.
      await until(() => endpoint.answers.length > answers, "the wait's confirming read");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
    } finally {
      stream.abort();
      await endpoint.api.control.payPayin(target.id);
      await endpoint.api.control.flushWebhooks();
      const delivery = endpoint.deliveries.at(-1);
      if (delivery) await endpoint.paykit.webhooks.parse(delivery.body, delivery.headers);
    }
    await expect(waiting).resolves.toMatchObject({ status: "APPROVED" });
  });

  it("ignores a payout event; a payin event nobody watches reaches no stream and breaks nothing", async () => {
    await using endpoint = await startEndpoint();
    const watched = await pendingPix(endpoint);
    const stream = await openRaw(endpoint.urlOf(watched.id));
    try {
      await until(() => stream.events().length === 1, "the PENDING event");
      const other = await pendingPix(endpoint);
      await endpoint.api.control.payPayin(other.id);
      await endpoint.api.control.flushWebhooks();
      const body = JSON.parse(endpoint.deliveries.at(-1)?.body ?? "{}");
      const now = new Date().toISOString();
      const payout = parseWebhook({
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
        createdAt: now,
        updatedAt: now,
      });
      await expect(endpoint.status.notify(payout)).resolves.toBeUndefined();
      await expect(endpoint.status.notify(parseWebhook({ ...body, id: UNKNOWN }))).resolves.toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 100)); // two poll intervals
      expect(stream.events().map((e) => e.status)).toEqual(["PENDING"]);
      expect(stream.ended()).toBe(false);
      expect(endpoint.status.stats()).toEqual({ openStreams: 1, watchedPayins: 1 });
    } finally {
      stream.abort();
    }
    await expectIdle(endpoint);
  });
});

describe("1,000 pages that leave", () => {
  type Stage = "before authorize" | "during the first read" | "after the first event";

  it("at every stage leave no stream, no watched payin, no timer and no pending answer behind", async () => {
    const census = timerCensus();
    const refBefore = refTimers();
    await using api = await startMock("http");
    const readStarted = new Set<string>();
    const paykit = api.client({
      maxRetries: 0,
      hooks: {
        onRequest: (event) => {
          if (event.method === "GET" && event.path.startsWith("payin/")) readStarted.add(event.path.slice(6));
        },
      },
    });
    const inAuthorize = new Set<string>();
    const status = createPaymentStatus({
      paykit,
      maxStreams: 100,
      pollIntervalMs: 50,
      maxPollIntervalMs: 50,
      keepAliveMs: 20,
      authorize: async (request) => {
        if (request.headers.get("x-stage") === "before authorize") {
          inAuthorize.add(request.headers.get("x-n") ?? "");
          // Decides only once the page has left.
          await new Promise((resolve) => {
            if (request.signal.aborted) resolve(undefined);
            request.signal.addEventListener("abort", resolve, { once: true });
          });
        }
        return true;
      },
    });
    let answering = 0;
    /** The handler calls in flight, by page stage and key: named when one never settles. */
    const inFlight = new Map<string, Request>();
    const server = createServer(
      toNodeListener(async (request) => {
        answering++;
        const call = `${request.headers.get("x-stage")} #${request.headers.get("x-n")}`;
        inFlight.set(call, request);
        try {
          return await status.handler(request);
        } finally {
          answering--;
          inFlight.delete(call);
        }
      }),
    );
    try {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payment-status`;
      const shared = await Promise.all(
        Array.from({ length: 10 }, () => paykit.payins.create(samplePayin("PIX"))),
      );
      // Each page of the middle stage watches a payin of its own, so its read is known to be in flight.
      const own = await Promise.all(
        Array.from({ length: 100 }, () => paykit.payins.create(samplePayin("PIX"))),
      );
      const gone = Array.from({ length: 100 }, (_, i) => `pi_gone${String(i).padStart(4, "0")}`);
      // Every read takes a while, so a page can leave while one is in flight.
      await api.control.addFault({ method: "GET", path: "/payin/*", latencyMs: 100, times: 1_000_000 });

      let n = 0;
      async function page(stage: Stage, id: string): Promise<number | "left"> {
        const key = String(n++);
        const controller = new AbortController();
        const answer = fetch(`${base}?id=${id}`, {
          headers: { accept: "text/event-stream", "x-stage": stage, "x-n": key },
          signal: controller.signal,
        });
        answer.catch(() => undefined);
        if (stage === "before authorize") {
          await until(() => inAuthorize.has(key), "the request to reach authorize", 60_000);
          controller.abort();
          return answer.then(
            (response) => response.status,
            () => "left" as const,
          );
        }
        if (stage === "during the first read") {
          await until(() => readStarted.has(id), "its first read to start", 60_000);
          controller.abort();
          return answer.then(
            (response) => response.status,
            () => "left" as const,
          );
        }
        const response = await answer;
        if (!response.body) return -1;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while (!text.includes("data: ")) {
          const { done, value } = await reader.read();
          if (done) break;
          text += value;
        }
        controller.abort();
        await reader.cancel().catch(() => undefined);
        return text.includes("data: ") ? response.status : -1;
      }

      const plan: Array<[Stage, string]> = [
        ...Array.from({ length: 400 }, (_, i) => ["before authorize", shared[i % 10]?.id] as [Stage, string]),
        ...own.map((payin) => ["during the first read", payin.id] as [Stage, string]),
        ...gone.map((id) => ["during the first read", id] as [Stage, string]),
        ...Array.from(
          { length: 400 },
          (_, i) => ["after the first event", shared[i % 10]?.id] as [Stage, string],
        ),
      ];
      // Ten batches of as many pages as there are slots: one slot that leaked turns pages of the next
      // batch away, so the size of the run only has to exceed one batch (it was 2,000 pages: 70 s of CI).
      expect(plan).toHaveLength(1_000);
      const outcomes = new Map<string, number>();
      for (let start = 0; start < plan.length; start += 100) {
        const batch = plan.slice(start, start + 100);
        const results = await Promise.all(batch.map(([stage, id]) => page(stage, id)));
        results.forEach((result, i) => {
          const key = `${batch[i]?.[0]}: ${result}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        });
        // A slot that leaked would turn the next batch's pages away with 503.
        await until(() => status.stats().openStreams === 0, "the batch's streams to be released", 60_000);
      }
      expect(Object.fromEntries(outcomes)).toEqual({
        "before authorize: left": 400,
        "during the first read: left": 200,
        "after the first event: 200": 400,
      });
      await until(() => answering === 0, "every handler call to settle", 60_000).catch((error: Error) => {
        const calls = [...inFlight]
          .slice(0, 10)
          .map(
            ([call, request]) => `${call}, its request ${request.signal.aborted ? "aborted" : "not aborted"}`,
          );
        throw new Error(`${error.message}; ${inFlight.size} in flight: ${calls.join("; ")}`);
      });
      expect(status.stats()).toEqual({ openStreams: 0, watchedPayins: 0 });
      expect(census.origins().join("\n")).toBe("");
      await until(() => refTimers() <= refBefore, "no more process-keeping timers than before", 60_000);

      // And the instance still serves; the census sees an open stream's timers (its payin's poll, the
      // keep-alive), so its zero above means something.
      const controller = new AbortController();
      const again = await fetch(`${base}?id=${shared[0]?.id}`, {
        headers: { accept: "text/event-stream" },
        signal: controller.signal,
      });
      expect(again.status).toBe(200);
      // Both at once (waited for: while the payin's read is in flight its poll timer is not armed, and
      // on a busy machine the answer's headers can come in just then), so a census that never sees
      // them still fails here.
      await until(() => census.live() >= 2, "the open stream's poll and keep-alive timers", 60_000);
      controller.abort();
      await until(() => status.stats().openStreams === 0, "the last stream to be released");
      expect(census.origins().join("\n")).toBe("");
      expect(unhandled).toEqual([]);
    } finally {
      await status.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      census.restore();
    }
  }, 240_000);
});
