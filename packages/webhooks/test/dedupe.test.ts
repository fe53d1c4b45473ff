import { describe, expect, it } from "vitest";
import { MemoryDedupStore, parseWebhook, WebhookDeduplicator, webhookDedupKey } from "../src/index.js";
import { dedupStoreContract, fakeTime } from "./dedupe-contract.js";
import { payinBody } from "./fixtures.js";

// Its clock reads Date.now() at each call, so the contract runs on fake timers: no test waits.
const memory = new MemoryDedupStore({ now: () => Date.now() });
dedupStoreContract("MemoryDedupStore", () => memory, fakeTime);

const event = parseWebhook(JSON.stringify(payinBody), { webhookId: "msg_1" });

describe("WebhookDeduplicator", () => {
  it("forgets a handled delivery after its TTL", async () => {
    let clock = 0;
    const dedup = new WebhookDeduplicator({ store: new MemoryDedupStore({ now: () => clock }), ttlMs: 1000 });
    await dedup.handle(event, () => 1);
    clock = 999;
    expect(await dedup.handle(event, () => 2)).toEqual({ status: "duplicate" });
    clock = 1000;
    expect(await dedup.handle(event, () => 3)).toEqual({ status: "handled", result: 3 });
  });

  it("keys unsigned events by resource, status and update time", () => {
    const { webhookId: _w, ...unsigned } = event;
    expect(webhookDedupKey(unsigned)).toBe(`payin:${payinBody.id}:APPROVED:${payinBody.updatedAt}`);
  });

  it.each([
    ["leaseMs", 0],
    ["leaseMs", 1.5],
    ["ttlMs", -1],
  ])("refuses %s = %s", (name, value) => {
    expect(() => new WebhookDeduplicator({ [name]: value })).toThrow(name);
  });

  // The interleaving that lost events with a claim-first dedupe: every order of "retry arrives" and
  // "first attempt fails" must end with the event handled exactly once and never acknowledged unhandled.
  it("never loses an event across 334 interleavings of a failing first attempt and its retries", async () => {
    let lost = 0;
    let handledTwice = 0;
    for (let i = 0; i < 334; i += 1) {
      const dedup = new WebhookDeduplicator({ store: new MemoryDedupStore() });
      const e = parseWebhook(JSON.stringify(payinBody), { webhookId: `msg_interleave_${i}` });
      let effects = 0;
      const failAfter = i % 7;
      const first = dedup
        .handle(e, async () => {
          for (let tick = 0; tick < failAfter; tick += 1) await Promise.resolve();
          throw new Error("first attempt fails");
        })
        .catch(() => "failed" as const);
      // The sender's view: a retry acknowledged with 2xx ("handled" or "duplicate") is never sent again.
      let acknowledged = false;
      for (let retry = 0; retry < 1 + (i % 5) && !acknowledged; retry += 1) {
        for (let tick = 0; tick < i % 3; tick += 1) await Promise.resolve();
        const outcome = await dedup.handle(e, () => {
          effects += 1;
        });
        if (outcome.status !== "in-progress") acknowledged = true;
      }
      await first;
      // The sender keeps retrying a delivery that was never acknowledged.
      while (!acknowledged) {
        const outcome = await dedup.handle(e, () => {
          effects += 1;
        });
        if (outcome.status !== "in-progress") acknowledged = true;
      }
      if (effects === 0) lost += 1;
      if (effects > 1) handledTwice += 1;
    }
    expect({ lost, handledTwice }).toEqual({ lost: 0, handledTwice: 0 });
  });
});

describe("MemoryDedupStore", () => {
  it("keeps at most maxEntries keys, forgetting the oldest", () => {
    const store = new MemoryDedupStore({ maxEntries: 2 });
    store.begin("a", "t", 60_000);
    store.begin("b", "t", 60_000);
    store.begin("c", "t", 60_000);
    expect(store.size).toBe(2);
    expect(store.begin("a", "t2", 60_000)).toBe("started");
    expect(store.begin("c", "t2", 60_000)).toBe("in-progress");
  });
});
