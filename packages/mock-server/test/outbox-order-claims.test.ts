// A resource's events reach a `paykit-mock listen` in order even when the store several processes
// serve answers a claim with "this copy moved on" (another copy, or process, made the attempt): the
// later event waits until the copy is read again, which makes the older attempt first. The outbox on
// its own, with the store's hooks played by the test.
import { afterEach, beforeEach, expect, it } from "vitest";
import { AccountTime } from "../src/domain/account-time.js";
import { MockClock } from "../src/domain/clock.js";
import { UlidFactory } from "../src/domain/ids.js";
import type { Listeners } from "../src/domain/listeners.js";
import { Outbox, type OutboxHooks, type SavedDelivery } from "../src/domain/outbox.js";

const ACCOUNT = "acct_order";
let time: AccountTime;
let outbox: Outbox | undefined;
beforeEach(() => {
  time = new AccountTime(new MockClock(), () => {});
});
afterEach(() => {
  outbox?.close();
  time.scheduler.stop();
});

function saved(n: number, status: string): SavedDelivery {
  return {
    id: `wh_${n}`,
    webhookId: `msg_${n}`,
    accountId: ACCOUNT,
    resource: "payout",
    resourceId: "po_one",
    status,
    url: "http://127.0.0.1:9/webhooks",
    state: "pending",
    attempts: [],
    payload: JSON.stringify({ id: "po_one", status }),
    duplicate: false,
    trace: null,
    cycleAttempts: 0,
    retryAt: null,
    createdAt: time.now(),
  };
}

/** An outbox whose listener takes every event and answers 200; `claim` decides each attempt. */
function listenedOutbox(claim: NonNullable<OutboxHooks["claim"]>) {
  const offered: string[] = [];
  const box = new Outbox(
    () => time,
    new UlidFactory(),
    () => () => Promise.reject(new Error("no attempt goes to the URL while a listener takes them")),
  );
  box.hooks = { changed: () => {}, saved: async () => {}, claim };
  box.listeners = {
    takes: () => true,
    offer: async (_accountId: string, attempt: { status: string }) => {
      offered.push(attempt.status);
      return { statusCode: 200, error: null };
    },
  } as unknown as Listeners;
  outbox = box;
  return { box, offered };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

it("holds a later event behind an older one whose claim found the copy moved on", async () => {
  // the store's PROCESSING moved past this copy (another copy made its attempt); COMPLETED is free
  const { box, offered } = listenedOutbox(async (id) =>
    id === "wh_1" ? { claimed: false, retryAt: null } : { claimed: true },
  );
  box.restore([saved(1, "PROCESSING"), saved(2, "COMPLETED")], () => () => []);
  await settle();
  await box.idle(ACCOUNT);
  expect(offered).toEqual([]);
  // COMPLETED waits on the account's clock for the copy to be read again (about a second)
  const completed = box.saved("wh_2");
  expect(completed?.state).toBe("pending");
  expect(completed?.retryAt).toBeGreaterThan(time.now());
  expect(completed?.retryAt).toBeLessThanOrEqual(time.now() + 1_000);

  // read again: the store's copy has PROCESSING's attempt to make; both go, in order
  const { box: again, offered: inOrder } = listenedOutbox(async () => ({ claimed: true }));
  again.restore([saved(1, "PROCESSING"), saved(2, "COMPLETED")], () => () => []);
  await settle();
  await again.idle(ACCOUNT);
  expect(inOrder).toEqual(["PROCESSING", "COMPLETED"]);
});

it("sends a later event at once when the older one's claim is only held for a moment", async () => {
  let held = true;
  const { box, offered } = listenedOutbox(async (id) =>
    id === "wh_1" && held ? { claimed: false, retryAt: time.now() + 200 } : { claimed: true },
  );
  box.restore([saved(1, "PROCESSING"), saved(2, "COMPLETED")], () => () => []);
  await settle();
  expect(offered).toEqual([]);
  held = false;
  await new Promise((resolve) => setTimeout(resolve, 400));
  await box.idle(ACCOUNT);
  expect(offered).toEqual(["PROCESSING", "COMPLETED"]);
});

it("holds a later event behind an older one started again while the later one waited for it", async () => {
  // PROCESSING's first claim is held elsewhere for a moment; the moment its attempt ends, before
  // COMPLETED looks again, a listener attaching (or a flush) starts it again, and its claim is slow
  let claims = 0;
  const { box, offered } = listenedOutbox(async (id) => {
    if (id !== "wh_1") return { claimed: true };
    claims += 1;
    if (claims > 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { claimed: true };
    }
    // every microtask turn until PROCESSING's retry is set and its attempt over: start it again
    const again = () => {
      if (box.saved("wh_1")?.retryAt === null && claims > 1) return;
      box.sendPendingNow(ACCOUNT);
      queueMicrotask(again);
    };
    queueMicrotask(again);
    return { claimed: false, retryAt: time.now() + 1_000 };
  });
  box.restore([saved(1, "PROCESSING"), saved(2, "COMPLETED")], () => () => []);
  await settle();
  await box.idle(ACCOUNT);
  await settle();
  await box.idle(ACCOUNT);
  expect(claims).toBe(2);
  expect(offered).toEqual(["PROCESSING", "COMPLETED"]);
});
