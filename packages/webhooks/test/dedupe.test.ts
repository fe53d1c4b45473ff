import { describe, expect, it, vi } from "vitest";
import { MemoryDedupStore, parseWebhook, WebhookDeduplicator, webhookDedupKey } from "../src/index.js";
import { payinBody } from "./fixtures.js";

const event = parseWebhook(JSON.stringify(payinBody), { webhookId: "msg_1" });

describe("WebhookDeduplicator", () => {
  it("runs the handler once per webhook id; retries of the same delivery are duplicates", async () => {
    const dedup = new WebhookDeduplicator();
    const handler = vi.fn(async () => "fulfilled");
    expect(await dedup.handle(event, handler)).toEqual({ duplicate: false, result: "fulfilled" });
    expect(await dedup.handle({ ...event }, handler)).toEqual({ duplicate: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("runs again after a handler failure, so the sender's retry is not lost", async () => {
    const dedup = new WebhookDeduplicator();
    await expect(dedup.handle(event, () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(await dedup.handle(event, () => 1)).toEqual({ duplicate: false, result: 1 });
  });

  it("forgets a delivery after its TTL", async () => {
    let clock = 0;
    const dedup = new WebhookDeduplicator({ store: new MemoryDedupStore({ now: () => clock }), ttlMs: 1000 });
    await dedup.handle(event, () => 1);
    clock = 999;
    expect(await dedup.handle(event, () => 2)).toEqual({ duplicate: true });
    clock = 1000;
    expect(await dedup.handle(event, () => 3)).toEqual({ duplicate: false, result: 3 });
  });

  it("works with an asynchronous pluggable store", async () => {
    const seen = new Set<string>();
    const store = {
      claim: async (key: string) => {
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      },
      release: async (key: string) => void seen.delete(key),
    };
    const dedup = new WebhookDeduplicator({ store });
    await dedup.handle(event, () => 1);
    expect([...seen]).toEqual(["webhook:msg_1"]);
    expect(await dedup.handle(event, () => 2)).toEqual({ duplicate: true });
  });

  it("keys unsigned events by resource, status and update time", () => {
    const { webhookId: _w, ...unsigned } = event;
    expect(webhookDedupKey(unsigned)).toBe(`payin:${payinBody.id}:APPROVED:${payinBody.updatedAt}`);
  });
});

describe("MemoryDedupStore", () => {
  it("keeps at most maxEntries keys, forgetting the oldest", () => {
    const store = new MemoryDedupStore({ maxEntries: 2 });
    store.claim("a", 60_000);
    store.claim("b", 60_000);
    store.claim("c", 60_000);
    expect(store.size).toBe(2);
    expect(store.claim("a", 60_000)).toBe(true);
    expect(store.claim("c", 60_000)).toBe(false);
  });
});
