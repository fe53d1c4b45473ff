// `paykit-mock listen` held in SIGSTOP for 40 s (a laptop put to sleep, a debugger paused on it) while
// deliveries come: one handed to it in the poll it was waiting in, one offered 15 s in (within its 30 s
// lease), one made 33 s in (its lease lapsed: that one goes to its URL and waits for a retry). After
// SIGCONT it goes on: the delivery offered while it slept and a new one reach the laptop, what went to
// its URL meanwhile is sent at once (docs/testing.md: "when listen attaches it sends everything still
// pending at once"), and once the account's clock passes the retries nothing is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, type WebhookDelivery } from "../src/index.js";
import {
  type Arrival,
  cleanups,
  cliListener,
  expectNoneLost,
  laptopReceiver,
  logOf,
  merchant,
  settle,
  sleep,
  until,
} from "./listen-attack-harness.js";

const STOPPED_MS = 40_000;

const started = cleanups();
afterAll(() => started.run());

describe("a listener stopped (SIGSTOP) for 40 s, then continued", () => {
  let mock: MockServer;
  let accountId: string;
  let arrivals: Arrival[];
  let listener: Awaited<ReturnType<typeof cliListener>>;
  let shop: ReturnType<typeof merchant>;
  /** Paid: just after the stop, 15 s in, 33 s in. */
  const paid: { handed: string; offered: string; lapsed: string } = { handed: "", offered: "", lapsed: "" };
  /** The log just before SIGCONT. */
  let asleep: WebhookDelivery[];

  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false });
    started.add(() => mock.close());
    const keys = await mock.control.createAccount({});
    accountId = keys.accountId;
    const receiver = await laptopReceiver();
    started.add(receiver.close);
    arrivals = receiver.arrivals;
    listener = await cliListener(mock.url, keys, receiver.url);
    started.add(() => {
      listener.child.kill("SIGCONT");
      return listener.kill();
    });
    shop = merchant(mock.url, keys);
    // a first delivery goes through; its ack came with the poll that now waits at the sandbox
    await mock.control.payPayin(await shop.payin(), { awaitWebhooks: true });
    await sleep(300);

    const stoppedAt = Date.now();
    listener.child.kill("SIGSTOP");
    paid.handed = await shop.payin();
    await mock.control.payPayin(paid.handed);
    await sleep(stoppedAt + 15_000 - Date.now());
    paid.offered = await shop.payin();
    await mock.control.payPayin(paid.offered);
    await sleep(stoppedAt + 33_000 - Date.now());
    paid.lapsed = await shop.payin();
    await mock.control.payPayin(paid.lapsed);
    await until(async () => ((await logOf(mock.control, accountId)).at(-1)?.attempts.length ?? 0) > 0);
    await sleep(stoppedAt + STOPPED_MS - Date.now());
    asleep = await logOf(mock.control, accountId);
    listener.child.kill("SIGCONT");
  }, 90_000);

  it("while it slept: nothing was marked delivered, and what it was handed failed as unanswered", () => {
    const state = (id: string) => asleep.find((d) => d.resourceId === id);
    for (const id of Object.values(paid)) expect(state(id)?.state).toBe("pending");
    // handed in the poll it slept in: failed as unanswered, and its retry (5 s on) waits for it too
    expect(state(paid.handed)?.attempts).toMatchObject([{ statusCode: null, error: expect.any(String) }]);
    expect(state(paid.offered)?.attempts).toEqual([]);
    // its lease lapsed: sent to its URL, where nothing answers
    expect(state(paid.lapsed)?.attempts.length).toBeGreaterThan(0);
    for (const attempt of state(paid.lapsed)?.attempts ?? []) expect(attempt.statusCode).toBeNull();
  });

  it("goes on: the delivery offered while it slept and a new one reach the laptop", async () => {
    const next = await shop.payin();
    await mock.control.payPayin(next);
    await until(() => [paid.offered, next].every((id) => arrivals.some((a) => a.id === id)), 20_000);
    await until(async () => {
      const log = await logOf(mock.control, accountId);
      return [paid.offered, next].every((id) => log.find((d) => d.resourceId === id)?.state === "delivered");
    }, 20_000);
    expect(listener.child.exitCode).toBeNull();
  });

  it("sends at once what went to its URL while its lease had lapsed", async () => {
    await until(() => arrivals.some((a) => a.id === paid.lapsed), 8_000);
  });

  it("loses nothing: after the retries every delivery reached the laptop, under its webhook-id", async () => {
    const log = await settle(mock.control, accountId, 5);
    expectNoneLost(log, arrivals);
  });
});
