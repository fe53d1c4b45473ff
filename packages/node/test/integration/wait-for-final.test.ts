import type { PayinCreateParams } from "@paykit/contract";
import { isFinalPayinStatus, PAYIN_STATUSES } from "@paykit/contract/rules";
import { SAMPLE_CARD, samplePayin } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { type FinalPayin, isPaykitError, type Paykit, PaymentWaitTimeoutError } from "../../src/index.js";
import { statusHubOf } from "../../src/resources/status-hub.js";
import { payinWaitsOf } from "../../src/resources/wait-for-final.js";
import { type StartedMock, startMock } from "../support/mock.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A client on the mock that records when it sent each GET /payin/{id}, and when each was answered. */
function readingClient(api: StartedMock, options: Parameters<StartedMock["client"]>[0] = {}) {
  const reads: number[] = [];
  const answered: number[] = [];
  const isRead = (event: { method: string; path: string }) =>
    event.method === "GET" && event.path.startsWith("payin/");
  const paykit = api.client({
    ...options,
    hooks: {
      onRequest: (event) => void (isRead(event) && reads.push(Date.now())),
      onResponse: (event) => void (isRead(event) && answered.push(Date.now())),
    },
  });
  return { paykit, reads, answered };
}

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Nothing of a wait may stay behind once it settled: no poll loop, no hub listener. */
function expectNothingLeft(paykit: Paykit): void {
  expect(payinWaitsOf(paykit.payins, () => Promise.reject(new Error("unused"))).activePolls).toBe(0);
  expect(statusHubOf(paykit.payins).size).toBe(0);
}

const card = (number: string): PayinCreateParams =>
  samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number } });

type Outcome = (api: StartedMock, id: string) => Promise<unknown>;
const pay: Outcome = (api, id) => api.control.payPayin(id);
const advance =
  (ms: number): Outcome =>
  (api) =>
    api.control.setClock({ advanceMs: ms });

// Every way the mock makes a payin final, per method (docs/payins.md, the status table).
const CASES: Array<[string, string, () => PayinCreateParams, Outcome | null]> = [
  ["PIX paid", "APPROVED", () => samplePayin("PIX"), pay],
  ["PIX expired on the clock (1 h)", "EXPIRED", () => samplePayin("PIX"), advance(HOUR + 60_000)],
  ["BOLETO paid", "APPROVED", () => samplePayin("BOLETO"), pay],
  ["BOLETO expired on the clock (3 days)", "EXPIRED", () => samplePayin("BOLETO"), advance(3 * DAY + 60_000)],
  [
    "OPEN_FINANCE authorized",
    "APPROVED",
    () => samplePayin("OPEN_FINANCE"),
    (api, id) => api.control.authorizePayin(id, true),
  ],
  [
    "OPEN_FINANCE denied",
    "REFUSED",
    () => samplePayin("OPEN_FINANCE"),
    (api, id) => api.control.authorizePayin(id, false),
  ],
  [
    "OPEN_FINANCE expired",
    "EXPIRED",
    () => samplePayin("OPEN_FINANCE"),
    (api, id) => api.control.expirePayin(id),
  ],
  ["CREDIT_CARD approved at creation", "APPROVED", () => card(SAMPLE_CARD.number), null],
  ["CREDIT_CARD refused at creation", "REFUSED", () => card("4000000000000002"), null],
  [
    "CREDIT_CARD 3DS authenticated",
    "APPROVED",
    () => card("4000000000003220"),
    (api, id) => api.control.completeThreeDS(id, "AUTHENTICATED"),
  ],
  [
    "CREDIT_CARD 3DS rejected",
    "REFUSED",
    () => card("4000000000003220"),
    (api, id) => api.control.completeThreeDS(id, "REJECTED"),
  ],
];

describe("payins.waitForFinal against the mock over HTTP", () => {
  it("FinalPayinStatus is exactly the contract's final statuses", () => {
    const final: FinalPayin["status"][] = ["APPROVED", "REFUSED", "EXPIRED"];
    expect(PAYIN_STATUSES.filter(isFinalPayinStatus).sort()).toEqual([...final].sort());
    expectTypeOf<FinalPayin["status"]>().toEqualTypeOf<"APPROVED" | "REFUSED" | "EXPIRED">();
  });

  it.each(CASES)("%s: resolves with the %s record", async (_name, expected, request, outcome) => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(request());
    const waiting = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 50 });
    if (outcome) {
      await until(() => reads.length >= 1, "the first read");
      await outcome(api, created.id);
    }
    const payin = await waiting;
    expect(payin).toMatchObject({ id: created.id, status: expected });
    if (!outcome) expect(reads).toHaveLength(1); // final at creation: one read, no poll
    expectNothingLeft(paykit);
  });

  it("rejects with PaymentWaitTimeoutError after timeoutMs, naming the last status", async () => {
    await using api = await startMock("http");
    const { paykit } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const error = await paykit.payins
      .waitForFinal(created.id, { timeoutMs: 300, pollIntervalMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentWaitTimeoutError);
    expect(error).toMatchObject({
      name: "PaymentWaitTimeoutError",
      code: "WAIT_TIMEOUT",
      payinId: created.id,
      timeoutMs: 300,
      lastStatus: "PENDING",
      retryable: true,
    });
    expect(isPaykitError(error)).toBe(true);
    expectNothingLeft(paykit);
  });

  it("rejects with the abort reason, and its poll stops", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const controller = new AbortController();
    const waiting = paykit.payins.waitForFinal(created.id, { signal: controller.signal, pollIntervalMs: 20 });
    await until(() => reads.length >= 2, "two reads");
    const reason = new Error("the shopper left");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expectNothingLeft(paykit);
    const after = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 200)); // ten intervals
    expect(reads.length).toBe(after);
    // An already aborted signal rejects at once, without a read.
    await expect(paykit.payins.waitForFinal(created.id, { signal: controller.signal })).rejects.toBe(reason);
    expect(reads.length).toBe(after);
  });

  it("one waiter leaving does not stop the poll the others share", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const controller = new AbortController();
    const leaving = paykit.payins.waitForFinal(created.id, { signal: controller.signal, pollIntervalMs: 30 });
    const staying = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 30 });
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ name: "AbortError" });
    await until(() => reads.length >= 2, "the shared poll going on");
    await api.control.payPayin(created.id);
    await expect(staying).resolves.toMatchObject({ status: "APPROVED" });
    expectNothingLeft(paykit);
  });

  it("100 concurrent waiters on one id share one poll: one read per interval", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const interval = 100;
    const started = Date.now();
    const waiting = Array.from({ length: 100 }, () =>
      paykit.payins.waitForFinal(created.id, { pollIntervalMs: interval, maxPollIntervalMs: interval }),
    );
    await until(() => reads.length >= 5, "five polls");
    await api.control.payPayin(created.id);
    const payins = await Promise.all(waiting);
    const elapsed = Date.now() - started;
    expect(new Set(payins.map((p) => p.status))).toEqual(new Set(["APPROVED"]));
    // Reads follow one another (each sleeps an interval after the last answer), never side by side.
    const gaps = reads.slice(1).map((at, i) => at - (reads[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(interval * 0.8);
    expect(reads.length).toBeLessThanOrEqual(Math.floor(elapsed / interval) + 1);
    expectNothingLeft(paykit);
  });

  it("slows down from pollIntervalMs to maxPollIntervalMs", async () => {
    await using api = await startMock("http");
    const { paykit, reads, answered } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const waiting = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 40, maxPollIntervalMs: 200 });
    await until(() => reads.length >= 7, "seven reads");
    await api.control.payPayin(created.id);
    await waiting;
    // From each answer to the next read: 40, 60, 90, 135, then 200 ms (timers never fire early).
    const pauses = reads.slice(1, 7).map((at, i) => at - (answered[i] as number));
    const least = [40, 60, 90, 135, 200, 200];
    expect(pauses.map((pause, i) => pause >= (least[i] as number) - 2)).toEqual(least.map(() => true));
  });

  it("waits out a 429's Retry-After and a 503, then goes on polling", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api, { maxRetries: 0 });
    const created = await paykit.payins.create(samplePayin("PIX"));
    const path = `/payin/${created.id}`;
    await api.control.addFault({ method: "GET", path, status: 503 });
    await api.control.addFault({ method: "GET", path, status: 429 }); // Retry-After: 1
    const waiting = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 20, maxPollIntervalMs: 20 });
    await until(() => reads.length >= 3, "a read after both faults");
    const afterRateLimit = (reads[2] as number) - (reads[1] as number);
    await api.control.payPayin(created.id);
    await expect(waiting).resolves.toMatchObject({ status: "APPROVED" });
    expect(afterRateLimit).toBeGreaterThanOrEqual(900); // the 1 s the service asked for, not 20 ms
  });

  it.each([
    ["an unknown id: NotFoundError", "pi_01JD0000000000000000000000", {}, "NotFoundError"],
    [
      "wrong keys: AuthenticationError",
      null,
      { secretKey: "sk_test_wrongWRONGwrong00" },
      "AuthenticationError",
    ],
  ] as const)("rejects at once when waiting cannot help, %s", async (_name, id, options, name) => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api, options);
    const payinId = id ?? (await api.paykit.payins.create(samplePayin("PIX"))).id;
    await expect(paykit.payins.waitForFinal(payinId, { pollIntervalMs: 20 })).rejects.toMatchObject({ name });
    expect(reads).toHaveLength(1);
    expectNothingLeft(paykit);
  });

  it("refuses bad options before any read", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    for (const options of [{ timeoutMs: 0 }, { pollIntervalMs: -1 }, { maxPollIntervalMs: 1.5 }]) {
      await expect(paykit.payins.waitForFinal("pi_x", options)).rejects.toMatchObject({
        name: "PaykitConfigError",
        code: "INVALID_OPTION",
      });
    }
    expect(reads).toHaveLength(0);
  });

  it("a verified webhook through webhooks.parse resolves the wait at once (one confirming read)", async () => {
    const deliveries: Array<{ body: string; headers: Record<string, string> }> = [];
    await using api = await startMock("http", {
      fetch: async (_url, init) => {
        deliveries.push({
          body: String(init.body),
          headers: { ...(init.headers as Record<string, string>) },
        });
        return new Response(null, { status: 204 });
      },
    });
    const secret = generateWebhookSecret();
    const keys = await api.control.createAccount({ webhookSecret: secret });
    const { paykit, reads, answered } = readingClient(api, { ...keys, webhookSecret: secret });
    const created = await paykit.payins.create(
      samplePayin("PIX", { webhookUrl: "https://merchant.test/hooks" }),
    );
    // A minute between polls: only the webhook can end this wait within the test.
    const waiting = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 60_000 });
    await until(() => answered.length === 1, "the first read's answer");
    await api.control.payPayin(created.id);
    await api.control.flushWebhooks();
    const delivery = deliveries.at(-1);
    if (!delivery) throw new Error("the mock sent no webhook");
    const parsed = Date.now();
    await paykit.webhooks.parse(delivery.body, delivery.headers);
    await expect(waiting).resolves.toMatchObject({ id: created.id, status: "APPROVED" });
    expect(Date.now() - parsed).toBeLessThan(30_000); // far below the minute of the next poll
    expect(reads).toHaveLength(2); // the first read and the one confirming the webhook
    expectNothingLeft(paykit);
  });
});
