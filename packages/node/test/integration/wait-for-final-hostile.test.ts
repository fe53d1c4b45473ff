// payins.waitForFinal as a hostile tester sees it, against the real mock over HTTP: aborts at every
// moment, options that make no sense, waits for one id that disagree, races between a finishing poll
// and a new waiter or a webhook, a payin that vanishes mid-wait, and a read that throws at once.
import type { Payin } from "@paykit/contract";
import { samplePayin } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Paykit } from "../../src/index.js";
import { statusHubOf } from "../../src/resources/status-hub.js";
import { PayinWaits, payinWaitsOf } from "../../src/resources/wait-for-final.js";
import { refTimers, type TimerCensus, timerCensus } from "../checkout/timer-census.js";
import { type StartedMock, startMock } from "../support/mock.js";

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A client on `api` that counts its reads of payins, sent and answered. */
function readingClient(api: StartedMock, options: Parameters<StartedMock["client"]>[0] = {}) {
  const reads: number[] = [];
  const answered: number[] = [];
  const isRead = (event: { method: string; path: string }) =>
    event.method === "GET" && event.path.startsWith("payin/");
  const paykit = api.client({
    maxRetries: 0,
    ...options,
    hooks: {
      onRequest: (event) => void (isRead(event) && reads.push(Date.now())),
      onResponse: (event) => void (isRead(event) && answered.push(Date.now())),
    },
  });
  return { paykit, reads, answered };
}

/** A read through `paykit` whose answer is held until `release()`: a read "in flight" for as long as a test needs. */
function heldRead(paykit: Paykit) {
  let started = 0;
  let answered = 0;
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const read = async (id: string, signal: AbortSignal): Promise<Payin> => {
    started++;
    const held = gate; // the gate of this read: release() opens it, even before the service answered
    const payin = await paykit.payins.retrieve(id, { signal });
    answered++;
    await held;
    return payin;
  };
  return {
    read,
    /** Reads started. */
    started: () => started,
    /** Reads the service answered (held or not). */
    answered: () => answered,
    /** Lets every read started so far answer; the next ones are held again. */
    release() {
      open();
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
  };
}

let census: TimerCensus;
let refBefore: number;
beforeEach(() => {
  census = timerCensus();
  refBefore = refTimers();
});
afterEach(() => census.restore());

/** Nothing of a settled wait stays: no poll loop, no hub listener, no timer of the wait code. */
async function expectNothingLeft(paykit: Paykit, waits?: PayinWaits): Promise<void> {
  const all = waits ?? payinWaitsOf(paykit.payins, () => Promise.reject(new Error("unused")));
  expect(all.activePolls).toBe(0);
  expect(statusHubOf(paykit.payins).size).toBe(0);
  expect(census.origins().join("\n")).toBe("");
  await until(() => refTimers() <= refBefore, "no more process-keeping timers than before the wait");
}

describe("waitForFinal, attacked", () => {
  it("an aborted signal rejects before any read, with its reason, or an AbortError when it has none", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const reason = new Error("the shopper left before we started");
    await expect(paykit.payins.waitForFinal(created.id, { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    await expect(
      paykit.payins.waitForFinal(created.id, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(reads).toHaveLength(0);
    await expectNothingLeft(paykit);
  });

  it("an abort while a read is in flight rejects before the read answers, and cancels it", async () => {
    await using api = await startMock("http");
    const { paykit, reads, answered } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    await api.control.addFault({ method: "GET", path: `/payin/${created.id}`, latencyMs: 10_000 });
    const controller = new AbortController();
    const waiting = paykit.payins.waitForFinal(created.id, { signal: controller.signal });
    await until(() => reads.length === 1, "the read to leave");
    const reason = new Error("the shopper left mid-read");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(answered).toHaveLength(0); // settled with the read still at the mock, its 10 s not over
    await expectNothingLeft(paykit);
  });

  it.each([
    ["timeoutMs 0", { timeoutMs: 0 }],
    ["timeoutMs -1", { timeoutMs: -1 }],
    ["timeoutMs NaN", { timeoutMs: Number.NaN }],
    ["timeoutMs -Infinity", { timeoutMs: Number.NEGATIVE_INFINITY }],
    ["timeoutMs 1.5", { timeoutMs: 1.5 }],
    ["timeoutMs past a timer's range", { timeoutMs: 2 ** 31 }],
    ["timeoutMs as text", { timeoutMs: "1000" }],
    ["pollIntervalMs 0", { pollIntervalMs: 0 }],
    ["pollIntervalMs Infinity", { pollIntervalMs: Number.POSITIVE_INFINITY }],
    ["maxPollIntervalMs NaN", { maxPollIntervalMs: Number.NaN }],
  ])("refuses %s before any read, leaving nothing", async (_what, options) => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    await expect(
      paykit.payins.waitForFinal("pi_01JD0000000000000000000000", options as never),
    ).rejects.toMatchObject({ name: "PaykitConfigError", code: "INVALID_OPTION" });
    expect(reads).toHaveLength(0);
    await expectNothingLeft(paykit);
  });

  it("timeoutMs Infinity waits with no timeout timer, and resolves at the final status", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const waiting = paykit.payins.waitForFinal(created.id, {
      timeoutMs: Number.POSITIVE_INFINITY,
      pollIntervalMs: 30,
    });
    await until(() => reads.length >= 2, "two reads");
    await api.control.payPayin(created.id);
    await expect(waiting).resolves.toMatchObject({ status: "APPROVED" });
    await expectNothingLeft(paykit);
  });

  it("a wait that asks for quicker reads than the one already running for its id gets them", async () => {
    await using api = await startMock("http");
    const { paykit, answered } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const patient = new AbortController();
    // A background job that checks once a minute, started first.
    const slow = paykit.payins.waitForFinal(created.id, {
      pollIntervalMs: 60_000,
      timeoutMs: Number.POSITIVE_INFINITY,
      signal: patient.signal,
    });
    slow.catch(() => undefined);
    await until(() => answered.length === 1, "the slow wait's first read");
    // A request that must know within seconds joins it.
    const quick = paykit.payins.waitForFinal(created.id, { pollIntervalMs: 50, timeoutMs: 20_000 });
    await api.control.payPayin(created.id);
    await expect(quick).resolves.toMatchObject({ status: "APPROVED" });
    await expect(slow).resolves.toMatchObject({ status: "APPROVED" }); // the same read ended both
    await expectNothingLeft(paykit);
  });

  it("waiters that arrive during the final read, or just after it settled, resolve too", async () => {
    await using api = await startMock("http");
    const { paykit } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    await api.control.payPayin(created.id);
    const held = heldRead(paykit);
    const waits = new PayinWaits(held.read, statusHubOf(paykit.payins));
    const first = waits.wait(created.id);
    await until(() => held.started() === 1, "the final read to be in flight");
    const during = waits.wait(created.id, { pollIntervalMs: 10 }); // joins the read in flight
    held.release();
    const [a, b] = await Promise.all([first, during]);
    expect([a.status, b.status]).toEqual(["APPROVED", "APPROVED"]);
    expect(held.started()).toBe(1);
    // In the same tick the loop finished: a new one starts, with a read of its own.
    const after = await first.then(() => {
      const next = waits.wait(created.id);
      held.release();
      return next;
    });
    expect(after.status).toBe("APPROVED");
    expect(held.started()).toBe(2);
    await expectNothingLeft(paykit, waits);
  });

  it("a verified webhook that arrives while a read is in flight makes it read again at once", async () => {
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
    const { paykit } = readingClient(api, { ...keys, webhookSecret: secret });
    const created = await paykit.payins.create(
      samplePayin("PIX", { webhookUrl: "https://merchant.test/hooks" }),
    );
    const held = heldRead(paykit);
    const waits = new PayinWaits(held.read, statusHubOf(paykit.payins));
    // A minute between reads: only the webhook can end this wait within the test.
    const waiting = waits.wait(created.id, { pollIntervalMs: 60_000 });
    await until(() => held.answered() === 1, "the first read to answer PENDING, held");
    await api.control.payPayin(created.id);
    await api.control.flushWebhooks();
    const delivery = deliveries.at(-1);
    if (!delivery) throw new Error("the mock sent no webhook");
    await paykit.webhooks.parse(delivery.body, delivery.headers);
    held.release(); // the read answers PENDING: the webhook said APPROVED meanwhile, so it reads again
    await until(() => held.started() === 2, "the read the webhook asked for");
    held.release();
    await expect(waiting).resolves.toMatchObject({ id: created.id, status: "APPROVED" });
    await expectNothingLeft(paykit, waits);
  });

  it("a payin that answers 404 in the middle of a wait rejects every waiter at once", async () => {
    await using api = await startMock("http");
    const { paykit, reads } = readingClient(api);
    const created = await paykit.payins.create(samplePayin("PIX"));
    const waiting = [
      paykit.payins.waitForFinal(created.id, { pollIntervalMs: 30 }),
      paykit.payins.waitForFinal(created.id, { pollIntervalMs: 30, timeoutMs: 60_000 }),
    ];
    await until(() => reads.length >= 2, "two reads");
    await api.control.addFault({ method: "GET", path: `/payin/${created.id}`, status: 404 });
    const outcomes = await Promise.allSettled(waiting);
    expect(outcomes.map((o) => o.status === "rejected" && (o.reason as Error).name)).toEqual([
      "NotFoundError",
      "NotFoundError",
    ]);
    await expectNothingLeft(paykit);
  });

  it("a read that throws before it starts rejects the wait, and leaves no dead poll for the next one", async () => {
    await using api = await startMock("http");
    const { paykit } = readingClient(api);
    const waits = new PayinWaits(() => {
      throw new TypeError("the client could not even build the request");
    }, statusHubOf(paykit.payins));
    for (let i = 0; i < 2; i++) {
      await expect(waits.wait("pi_01JD0000000000000000000000", { timeoutMs: 5_000 })).rejects.toThrow(
        "could not even build",
      );
      expect(waits.activePolls).toBe(0);
    }
    await expectNothingLeft(paykit, waits);
  });
});
