// When the memory store next has work for its worker (MemoryStore.nextWake): the earliest of its due
// work and of its pending deliveries (a lease's end, a hold, a next attempt on the account's clock).
// Every commit asks, so the deliveries' part is worked out again only after a change that may move it:
// a test suite whose receiver is down keeps thousands of deliveries pending, and a scan of them all on
// every request made each one cost milliseconds. The store's clock is the test's.
import { WEBHOOK_RETRY_DELAYS_MS } from "@paykit/contract";
import { beforeEach, describe, expect, it } from "vitest";
import { Account } from "../src/domain/accounts.js";
import { type DeliveryRecord, newDelivery, recordAttempt } from "../src/domain/deliveries.js";
import { UlidFactory } from "../src/domain/ids.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";

const LEASE_MS = 10_000;

describe("the memory store's next wake", () => {
  let now: number;
  let store: MemoryStore;
  const ids = new UlidFactory();
  let accountId: string;
  /** How many times the store walked its pending deliveries. */
  let scans: number;

  beforeEach(async () => {
    now = Date.parse("2030-03-12T12:00:00Z");
    store = new MemoryStore(() => now);
    accountId = `acct_${ids.next(now)}`;
    await store.transaction(async (tx) => {
      tx.insertAccount(new Account(accountId, `pk_test_${accountId}`, "0".repeat(64), {}));
    });
    scans = 0;
    const pending = store.state.pending;
    const values = pending.values.bind(pending);
    Object.defineProperty(pending, Symbol.iterator, {
      value: () => {
        scans += 1;
        return values();
      },
    });
  });

  async function queue(resourceId: string): Promise<string> {
    const delivery = newDelivery(
      {
        accountId,
        resource: "payin",
        resourceId,
        status: "APPROVED",
        url: "http://127.0.0.1:9/webhooks",
        body: { id: resourceId, status: "APPROVED" },
        duplicate: false,
        outOfOrder: false,
        trace: null,
      },
      ids.next(now),
      now,
      now,
    );
    await store.transaction(async (tx) => tx.insertDelivery(delivery));
    return delivery.id;
  }

  it("is the earliest of its deliveries' moments, and moves with each change to them", async () => {
    expect(store.nextWake()).toBeUndefined();
    const id = await queue("pi_1");
    expect(store.nextWake()).toBe(now);
    // claimed: due again when the lease ends, unless renewed
    const [claim] = await store.claimAttempts("p1", { limit: 10, leaseMs: LEASE_MS });
    expect(store.nextWake()).toBe(now + LEASE_MS);
    now += 4_000;
    await store.renewClaims("p1", [id], LEASE_MS);
    expect(store.nextWake()).toBe(now + LEASE_MS);
    // the receiver answered 500: the retry's time, on the account's clock
    const outcome: DeliveryRecord = structuredClone(claim!.delivery);
    recordAttempt(outcome, { statusCode: 500, error: null }, claim!.accountNow, now);
    expect(await store.finishAttempt("p1", claim!, outcome)).toBe(true);
    const retryAt = now + WEBHOOK_RETRY_DELAYS_MS[0]!;
    expect(store.nextWake()).toBe(retryAt);
    // the account's clock moved an hour forward: the retry falls due an hour sooner in real time
    await store.transaction(async (tx) => {
      const account = (await tx.account(accountId, { lock: true }))!;
      account.clockOffsetMs += 3_600_000;
      tx.updateAccount(account);
      tx.clockMoved(account);
    });
    expect(store.nextWake()).toBe(retryAt - 3_600_000);
    // so did the sandbox's
    await store.transaction(async (tx) => tx.updateSandbox({ ...tx.sandbox, clockOffsetMs: 60_000 }));
    expect(store.nextWake()).toBe(retryAt - 3_660_000);
  });

  it("walks its pending deliveries again only after a change to them, not on every commit", async () => {
    for (let n = 0; n < 50; n++) await queue(`pi_${n}`);
    expect(store.nextWake()).toBe(now);
    const after = scans;
    // commits that change no delivery (an account's settings, its last use) leave the answer as it was
    for (let n = 0; n < 20; n++) {
      await store.transaction(async (tx) => {
        const account = (await tx.account(accountId, { lock: true }))!;
        tx.updateAccount(account);
        tx.touchAccount(accountId);
      });
      expect(store.nextWake()).toBe(now);
    }
    expect(scans).toBe(after);
    // one queued delivery is a change: the next answer walks them once
    await queue("pi_new");
    expect(store.nextWake()).toBe(now);
    expect(scans).toBe(after + 1);
  });

  /** Opens an account with a PIX expiry on the account's clock, `inMs` from now. */
  async function accountDueIn(inMs: number): Promise<string> {
    const id = `acct_${ids.next(now)}`;
    await store.transaction(async (tx) => {
      tx.insertAccount(new Account(id, `pk_test_${id}`, "0".repeat(64), {}));
      tx.schedule({
        kind: "payin.expire",
        clock: "account",
        accountId: id,
        resourceId: `pi_${id}`,
        at: now + inMs,
      });
    });
    return id;
  }

  it("is the earliest due work of any account, and moves with its accounts' clocks and the sandbox's", async () => {
    const late = await accountDueIn(60_000);
    const soon = await accountDueIn(30_000);
    expect(store.nextWake()).toBe(now + 30_000);
    expect(await store.dueAccounts(10)).toEqual([]);
    // the later account's clock moved 45 s forward: its expiry is now the first, 15 s from now
    await store.transaction(async (tx) => {
      const account = (await tx.account(late, { lock: true }))!;
      account.clockOffsetMs += 45_000;
      tx.updateAccount(account);
      tx.clockMoved(account);
    });
    expect(store.nextWake()).toBe(now + 15_000);
    // the sandbox's clock 20 s forward: the late one is due, the other 10 s from now
    await store.transaction(async (tx) => tx.updateSandbox({ ...tx.sandbox, clockOffsetMs: 20_000 }));
    expect(store.nextWake()).toBe(now - 5_000);
    expect(await store.dueAccounts(10)).toEqual([late]);
    // its work taken, it has none left; the other falls due as real time passes
    await store.transaction(async (tx) => {
      await tx.takeDue(late, now + 65_000, now, 10);
    });
    expect(store.nextWake()).toBe(now + 10_000);
    now += 10_000;
    expect(await store.dueAccounts(10)).toEqual([soon]);
    expect(store.state.dueAccounts.has(late)).toBe(false);
  });

  it("works out again only the accounts a commit changed, however many accounts hold due work", async () => {
    for (let n = 0; n < 2_000; n++) await accountDueIn(60_000 + n);
    expect(store.nextWake()).toBe(now + 60_000);
    let lookedAt = 0;
    const nextDueAt = store.state.nextDueAt.bind(store.state);
    store.state.nextDueAt = (id: string) => {
      lookedAt += 1;
      return nextDueAt(id);
    };
    // a commit that schedules work on one account, then the worker's question: one account looked at
    const one = await accountDueIn(1_000);
    expect(store.nextWake()).toBe(now + 1_000);
    expect(await store.dueAccounts(10)).toEqual([]);
    expect(lookedAt).toBe(1);
    now += 1_000;
    expect(await store.dueAccounts(10)).toEqual([one]);
    expect(lookedAt).toBe(1);
  });
});
