// `paykit-mock listen` at the edges of its rules, each on one mock in a few hundred ms:
// - `--events` takes only some events, "the others go to their URL as without a listener": a taken
//   event must not wait behind an older one of its resource that is not taken (and that one keeps its
//   own retry schedule, neither sent early nor twice);
// - order per resource holds when a test sets the account's clock back between two events;
// - a listener whose lease lapsed (a laptop asleep for more than 30 s) is attached again by its next
//   poll, and what waited meanwhile is sent to it at once, as for a listener that attaches.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LISTENER_LEASE_MS } from "../src/domain/listeners.js";
import { createMockServer } from "../src/index.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { ListenerHub } from "../src/work/listeners.js";
import {
  cleanups,
  expectInOrder,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
  sleep,
  until,
} from "./listen-attack-harness.js";

const started = cleanups();
afterEach(() => started.run());

async function setUp(events?: string[]) {
  const mock = await createMockServer({ autoAdvance: false });
  started.add(() => mock.close());
  const keys = await mock.control.createAccount({ balance: 1_000_000 });
  let status = 200;
  const receiver = await laptopReceiver(() => ({ status }));
  started.add(receiver.close);
  const listen = () => {
    const listener = inProcessListener({
      url: mock.url,
      keys,
      forwardTo: receiver.url,
      ...(events ? { events } : {}),
    });
    started.add(listener.stop);
    return listener;
  };
  return {
    mock,
    keys,
    receiver,
    listen,
    answer: (code: number) => (status = code),
    shop: merchant(mock.url, keys),
  };
}

describe("--events", () => {
  it("does not hold a taken event behind an older one of its resource that is not taken", async () => {
    const { mock, keys, receiver, listen, shop } = await setUp(["payout.completed"]);
    await listen().ready;
    const payout = await shop.payout();
    await mock.control.advancePayout(payout, { awaitWebhooks: true }); // PROCESSING: to its URL, refused
    await mock.control.advancePayout(payout, { awaitWebhooks: true }); // COMPLETED: the listener's
    await until(() => receiver.arrivals.length > 0, 3_000);
    expect(receiver.arrivals.map((a) => a.status)).toEqual(["COMPLETED"]);
    const log = await logOf(mock.control, keys.accountId);
    expect(log.map((d) => [d.status, d.attempts.length])).toEqual([
      ["PROCESSING", 1],
      ["COMPLETED", 1],
    ]);
  });

  it("leaves a pending event it does not take to its retry when it attaches", async () => {
    const { mock, keys, listen, shop } = await setUp(["payout.*"]);
    const payin = await shop.payin();
    await mock.control.payPayin(payin, { awaitWebhooks: true }); // to its URL, refused: a retry in 5 s
    await listen().ready;
    await sleep(500);
    const [delivery] = await logOf(mock.control, keys.accountId);
    expect(delivery?.attempts).toHaveLength(1);
  });
});

it("keeps a payout's events in order when the account's clock is set back between them", async () => {
  const { mock, keys, receiver, listen, answer, shop } = await setUp();
  await listen().ready;
  const payout = await shop.payout();
  answer(500);
  await mock.control.advancePayout(payout, { awaitWebhooks: true }); // PROCESSING, refused
  await mock.control.setAccountClock(keys.accountId, { now: "2020-01-01T00:00:00Z" });
  answer(200);
  await mock.control.advancePayout(payout, { awaitWebhooks: true }); // COMPLETED
  // back to the present and past the retries: whatever waits is sent
  await mock.control.setAccountClock(keys.accountId, { now: new Date(Date.now() + 60 * 60_000) });
  await mock.control.flushWebhooks(keys.accountId);
  await until(
    async () => (await logOf(mock.control, keys.accountId)).every((d) => d.state === "delivered"),
    10_000,
  );
  expectInOrder(receiver.arrivals, payout, ["PROCESSING", "COMPLETED"]);
});

describe("a listener whose lease lapsed", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is attached again by its next poll: what waited is sent to it at once", async () => {
    const attached: string[] = [];
    const listeners = new ListenerHub(
      new MemoryStore(() => Date.now()),
      "this-process",
      (accountId, fresh) => {
        if (fresh) attached.push(accountId);
      },
    );
    try {
      await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
      vi.advanceTimersByTime(LISTENER_LEASE_MS + 1_000);
      expect(listeners.takes("acct_a", "payin.approved")).toBe(false);
      await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
      expect(listeners.takes("acct_a", "payin.approved")).toBe(true);
      expect(attached).toEqual(["acct_a", "acct_a"]);
    } finally {
      listeners.close();
    }
  });
});
