import { describe, expect, it } from "vitest";
import { parseWebhook, WebhookDeduplicator, type WebhookDedupStore } from "../src/index.js";
import { payinBody } from "./fixtures.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A key no other test of the run uses (stores outlive one test on a shared server). */
const freshKey = () => `contract:${process.pid}:${Date.now()}:${counter++}`;
const eventWith = (webhookId: string) => parseWebhook(JSON.stringify(payinBody), { webhookId });

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The behaviour every {@link WebhookDedupStore} must have, run against the memory store and the real
 * Redis and PostgreSQL servers alike. `store()` gives the store under test.
 */
export function dedupStoreContract(name: string, store: () => WebhookDedupStore): void {
  describe(`${name}: the store contract`, () => {
    it("begins a fresh key, then answers in-progress to another attempt", async () => {
      const key = freshKey();
      expect(await store().begin(key, "a", 60_000)).toBe("started");
      expect(await store().begin(key, "b", 60_000)).toBe("in-progress");
    });

    it("answers done after complete, until the TTL runs out", async () => {
      const key = freshKey();
      await store().begin(key, "a", 60_000);
      await store().complete(key, "a", 300);
      expect(await store().begin(key, "b", 60_000)).toBe("done");
      await sleep(450);
      expect(await store().begin(key, "c", 60_000)).toBe("started");
    });

    it("release frees only the caller's own lease", async () => {
      const key = freshKey();
      await store().begin(key, "a", 60_000);
      await store().release(key, "intruder");
      expect(await store().begin(key, "b", 60_000)).toBe("in-progress");
      await store().release(key, "a");
      expect(await store().begin(key, "b", 60_000)).toBe("started");
    });

    it("an expired lease is taken over, and the late owner's release does not free the new lease", async () => {
      const key = freshKey();
      await store().begin(key, "dead", 200);
      await sleep(350);
      expect(await store().begin(key, "next", 60_000)).toBe("started");
      await store().release(key, "dead");
      expect(await store().renew(key, "dead", 60_000)).toBe(false);
      expect(await store().begin(key, "third", 60_000)).toBe("in-progress");
    });

    it("renew extends only the owner's lease", async () => {
      const key = freshKey();
      await store().begin(key, "a", 300);
      await sleep(150);
      expect(await store().renew(key, "a", 1_000)).toBe(true);
      expect(await store().renew(key, "b", 1_000)).toBe(false);
      await sleep(300);
      expect(await store().begin(key, "b", 60_000)).toBe("in-progress");
    });

    it("of 40 concurrent attempts exactly one starts", async () => {
      const key = freshKey();
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => store().begin(key, `t${i}`, 60_000)),
      );
      expect(answers.filter((a) => a === "started")).toHaveLength(1);
      expect(answers.filter((a) => a === "in-progress")).toHaveLength(39);
    });
  });

  describe(`${name}: WebhookDeduplicator`, () => {
    it("handles a delivery once; a later retry is a duplicate", async () => {
      const dedup = new WebhookDeduplicator({ store: store() });
      const event = eventWith(freshKey());
      let runs = 0;
      expect(await dedup.handle(event, () => ++runs)).toEqual({ status: "handled", result: 1 });
      expect(await dedup.handle(event, () => ++runs)).toEqual({ status: "duplicate" });
      expect(runs).toBe(1);
    });

    it("a retry during the first attempt is in-progress, and runs once the first attempt fails", async () => {
      const dedup = new WebhookDeduplicator({ store: store() });
      const event = eventWith(freshKey());
      const firstAttempt = deferred();
      const first = dedup.handle(event, () => firstAttempt.promise);
      await sleep(20);
      expect(await dedup.handle(event, () => "never")).toEqual({ status: "in-progress" });
      firstAttempt.reject(new Error("database down"));
      await expect(first).rejects.toThrow("database down");
      expect(await dedup.handle(event, () => "fulfilled")).toEqual({
        status: "handled",
        result: "fulfilled",
      });
    });

    it("renews the lease while a long handler runs", async () => {
      const dedup = new WebhookDeduplicator({ store: store(), leaseMs: 300 });
      const event = eventWith(freshKey());
      const long = dedup.handle(event, () => sleep(900).then(() => "slow"));
      await sleep(650);
      expect(await dedup.handle(event, () => "twice")).toEqual({ status: "in-progress" });
      expect(await long).toEqual({ status: "handled", result: "slow" });
      expect(await dedup.handle(event, () => "twice")).toEqual({ status: "duplicate" });
    });

    it("runs the next retry once a dead process's lease expires", async () => {
      const key = freshKey();
      const event = eventWith(key);
      // A process took the lease and died without releasing it.
      expect(await store().begin(`webhook:${key}`, "crashed-process", 250)).toBe("started");
      const dedup = new WebhookDeduplicator({ store: store() });
      expect(await dedup.handle(event, () => 1)).toEqual({ status: "in-progress" });
      await sleep(400);
      expect(await dedup.handle(event, () => 2)).toEqual({ status: "handled", result: 2 });
    });
  });
}
