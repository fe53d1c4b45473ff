// Resetting or removing an account of any size (issue 21): the reset used to throw RangeError past ~150k
// deliveries in the sandbox, halfway through (the kept deliveries were spread into one `splice` call,
// an argument each). The memory store is seeded directly, through its own transactions, with 200k
// delivered deliveries and 20k payins (each with its expiry due) for the big account and 150k deliveries
// for another one, as months of a team's sandbox would leave them; the reset and the removal then go
// through the engine: `resetAccount` of the control API, and the retention sweep.
import { describe, expect, it, vi } from "vitest";
import type { DeliveryRecord } from "../src/domain/deliveries.js";
import { UlidFactory } from "../src/domain/ids.js";
import type { PayinRecord } from "../src/domain/records.js";
import { createEngine } from "../src/index.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { basic } from "./fixtures.js";

const T0 = Date.UTC(2030, 0, 1);
const ids = new UlidFactory();
const AT = new Date(T0).toISOString();

function delivery(accountId: string, resourceId: string, i: number): DeliveryRecord {
  const ulid = ids.next(T0 + i);
  return {
    id: `wh_${ulid}`,
    webhookId: `msg_${ulid}`,
    accountId,
    resource: "payin",
    resourceId,
    status: "APPROVED",
    url: "http://127.0.0.1:9/hook",
    state: "delivered",
    attempts: [{ at: AT, statusCode: 204, error: null }],
    payload: "{}",
    duplicate: false,
    outOfOrder: false,
    trace: null,
    cycleAttempts: 1,
    nextAttemptAt: null,
    holdUntil: 0,
    createdAt: T0 + i,
    seq: 0,
  };
}

function payin(accountId: string, i: number): PayinRecord {
  return {
    id: ids.next(T0 + i, "pi_"),
    accountId,
    externalId: `acq_${i}`,
    referenceId: `order-${i}`,
    paymentMethod: "PIX",
    amount: 10_000,
    orderJson: '{"customer":{},"items":[]}',
    webhookUrl: null,
    createdAt: T0 + i,
    status: "PENDING",
    netAmount: null,
    reservedAmount: null,
    reserveReleaseAt: null,
    threeDS: null,
    card: null,
    pixCharge: null,
    boletoBarcode: null,
    boletoUrl: null,
    openFinanceRedirectUrl: null,
    pageToken: null,
    installments: null,
    transitions: null,
    trace: null,
  };
}

/** Seeds an account's history in one transaction of the store, as its requests would have left it. */
async function seed(store: MemoryStore, accountId: string, counts: { payins: number; deliveries: number }) {
  await store.transaction(async (tx) => {
    const account = (await tx.account(accountId, { lock: true }))!;
    for (let i = 0; i < counts.payins; i++) {
      const record = payin(accountId, i);
      tx.insertPayin(record);
      // a PIX payin's expiry, an hour after creation on the account's clock (the due queue's lanes)
      tx.schedule({
        kind: "payin.expire",
        accountId,
        resourceId: record.id,
        at: T0 + 3_600_000 + i,
        clock: "account",
      });
    }
    for (let i = 0; i < counts.deliveries; i++) {
      const stored = delivery(accountId, `pi_${accountId}_${i % 1000}`, i);
      tx.insertDelivery(stored);
      // written delivered, as a receiver's 2xx leaves it: no longer pending
      tx.updateDelivery(stored);
    }
    account.approvedNet += 123_456;
    tx.updateAccount(account);
  });
}

describe("an account of any size", () => {
  it("resets, and is removed, with 200k deliveries and 20k payins of its own and 150k deliveries of another account", async () => {
    let now = Date.now();
    const store = new MemoryStore(() => now);
    const engine = createEngine({
      autoAdvance: false,
      sandboxStore: store,
      retention: 1_000,
      now: () => now,
    });
    try {
      const big = await engine.control.createAccount({ balance: 5_000 });
      const other = await engine.control.createAccount({ balance: 7_000 });
      await seed(store, big.accountId, { payins: 20_000, deliveries: 200_000 });
      await seed(store, other.accountId, { payins: 0, deliveries: 150_000 });
      const state = store.state;
      expect(state.records.get(big.accountId)?.deliveries).toHaveLength(200_000);
      expect(state.records.get(big.accountId)?.due.size).toBe(20_000);
      expect((await engine.control.getAccount(big.accountId)).balance.available).toBe(5_000 + 123_456);
      const bigDelivery = state.records.get(big.accountId)!.deliveries[0]!.id;
      const bigPayin = state.records.get(big.accountId)!.payins[0]!.id;
      const otherDelivery = state.records.get(other.accountId)!.deliveries.at(-1)!.id;

      const fresh = await engine.control.resetAccount(big.accountId);
      expect(fresh.balance.available).toBe(5_000);
      expect(await engine.control.webhooks(big.accountId)).toEqual([]);
      expect(await engine.control.payins(big.accountId)).toEqual([]);
      expect(state.deliveries.get(bigDelivery)).toBeUndefined();
      expect(state.payins.get(bigPayin)).toBeUndefined();
      expect(state.dueAccounts.has(big.accountId)).toBe(false);
      // the other account keeps every delivery
      expect(state.records.get(other.accountId)?.deliveries).toHaveLength(150_000);
      expect(state.deliveries.get(otherDelivery)?.accountId).toBe(other.accountId);
      expect(await engine.control.webhooks(other.accountId, { limit: 5 })).toHaveLength(5);
      expect(state.deliveries.size).toBe(150_000);
      // the reset account answers its merchant API at once, with its keys
      const payout = await engine.handle(
        new Request("http://mock.test/payout?limit=10", { headers: { authorization: basic(big) } }),
      );
      expect(payout.status).toBe(200);

      // two seconds of real time later (past the retention of one) the big account is used, the other one not: the retention sweep
      // removes the other one with its 150k deliveries, never the default account
      now += 2_000;
      const used = await engine.handle(
        new Request("http://mock.test/payout?limit=10", { headers: { authorization: basic(big) } }),
      );
      expect(used.status).toBe(200);
      await vi.waitFor(() => expect(state.accounts.has(other.accountId)).toBe(false), { timeout: 60_000 });
      expect(state.deliveries.size).toBe(0);
      expect(state.records.has(other.accountId)).toBe(false);
      expect(state.accounts.has(big.accountId)).toBe(true);
      expect(state.accounts.has(engine.account.accountId)).toBe(true);
      const removed = await engine.handle(
        new Request("http://mock.test/payout?limit=10", { headers: { authorization: basic(other) } }),
      );
      expect(removed.status).toBe(401);
    } finally {
      engine.close();
    }
  }, 120_000);
});
