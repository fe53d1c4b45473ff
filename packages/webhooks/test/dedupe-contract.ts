import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseWebhook, WebhookDeduplicator, type WebhookDedupStore } from "../src/index.js";
import { payinBody } from "./fixtures.js";

/**
 * How a contract run lets time pass. The memory store takes an injected clock, so its run is on
 * vitest's fake timers (`Date.now` and the deduplicator's renewal interval move together, nothing
 * waits); Redis and PostgreSQL expire keys by their own clocks, so their runs wait in real time.
 */
export interface ContractTime {
  /** Fake timers for this describe block (the store must read `Date.now()` at each call). */
  fake: boolean;
  /** Lets `ms` pass. */
  advance(ms: number): Promise<void>;
  /** A lease or TTL that must still be alive right after it is set, and gone once waited past. */
  shortMs: number;
}

/** Time on vitest's fake timers: `advance` moves `Date.now()` and runs the timers due meanwhile. */
export const fakeTime: ContractTime = {
  fake: true,
  shortMs: 1_000,
  advance: async (ms) => {
    await vi.advanceTimersByTimeAsync(ms);
  },
};

/** Real time, for stores that expire keys by their server's clock. */
export const realTime: ContractTime = {
  fake: false,
  // Real servers: a loaded 2-core CI machine stalled this process for over a second between setting a
  // 1 s lease and reading it back, so a lease that must still be alive gets 3 s.
  shortMs: 3_000,
  advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

// Lease and TTL lengths: a value that must still be alive is checked well within its length (SHORT,
// the run's `shortMs`, is met again only after waiting past it, and LONG never runs out within a test).
const LONG = 60_000;

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
 * Redis and PostgreSQL servers alike. `store()` gives the store under test; `time` how time passes.
 */
export function dedupStoreContract(name: string, store: () => WebhookDedupStore, time: ContractTime): void {
  const SHORT = time.shortMs;
  /** Polls `begin` until the key is free again (an expiry), as a later delivery would find it. */
  async function beginOnceFree(key: string, token: string): Promise<string> {
    let answer = await store().begin(key, token, LONG);
    for (let waited = 0; answer !== "started" && waited < 10 * SHORT; waited += SHORT / 10) {
      await time.advance(SHORT / 10);
      answer = await store().begin(key, token, LONG);
    }
    return answer;
  }

  describe(`${name}: the store contract`, () => {
    if (time.fake) {
      beforeEach(() => {
        vi.useFakeTimers();
      });
      afterEach(() => {
        vi.useRealTimers();
      });
    }

    it("begins a fresh key, then answers in-progress to another attempt", async () => {
      const key = freshKey();
      expect(await store().begin(key, "a", LONG)).toBe("started");
      expect(await store().begin(key, "b", LONG)).toBe("in-progress");
    });

    it("answers done after complete, until the TTL runs out", async () => {
      const key = freshKey();
      await store().begin(key, "a", LONG);
      await store().complete(key, "a", SHORT);
      expect(await store().begin(key, "b", LONG)).toBe("done");
      await time.advance(SHORT);
      expect(await beginOnceFree(key, "c")).toBe("started");
    });

    it("release frees only the caller's own lease", async () => {
      const key = freshKey();
      await store().begin(key, "a", LONG);
      await store().release(key, "intruder");
      expect(await store().begin(key, "b", LONG)).toBe("in-progress");
      await store().release(key, "a");
      expect(await store().begin(key, "b", LONG)).toBe("started");
    });

    it("an expired lease is taken over, and the late owner's release does not free the new lease", async () => {
      const key = freshKey();
      await store().begin(key, "dead", SHORT);
      await time.advance(SHORT);
      expect(await beginOnceFree(key, "next")).toBe("started");
      await store().release(key, "dead");
      expect(await store().renew(key, "dead", LONG)).toBe(false);
      expect(await store().begin(key, "third", LONG)).toBe("in-progress");
    });

    it("renew extends only the owner's lease", async () => {
      const key = freshKey();
      await store().begin(key, "a", SHORT);
      expect(await store().renew(key, "a", LONG)).toBe(true);
      expect(await store().renew(key, "b", LONG)).toBe(false);
      // past the first lease: only the renewal keeps the key
      await time.advance(SHORT + SHORT / 2);
      expect(await store().begin(key, "b", LONG)).toBe("in-progress");
    });

    it("of 40 concurrent attempts exactly one starts", async () => {
      const key = freshKey();
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => store().begin(key, `t${i}`, LONG)),
      );
      expect(answers.filter((a) => a === "started")).toHaveLength(1);
      expect(answers.filter((a) => a === "in-progress")).toHaveLength(39);
    });
  });

  describe(`${name}: WebhookDeduplicator`, () => {
    if (time.fake) {
      beforeEach(() => {
        vi.useFakeTimers();
      });
      afterEach(() => {
        vi.useRealTimers();
      });
    }

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
      const started = deferred();
      const first = dedup.handle(event, () => {
        started.resolve();
        return firstAttempt.promise;
      });
      await started.promise;
      expect(await dedup.handle(event, () => "never")).toEqual({ status: "in-progress" });
      firstAttempt.reject(new Error("database down"));
      await expect(first).rejects.toThrow("database down");
      expect(await dedup.handle(event, () => "fulfilled")).toEqual({
        status: "handled",
        result: "fulfilled",
      });
    });

    it("renews the lease while a long handler runs", async () => {
      const dedup = new WebhookDeduplicator({ store: store(), leaseMs: SHORT });
      const event = eventWith(freshKey());
      const release = deferred();
      const started = deferred();
      const long = dedup.handle(event, () => {
        started.resolve();
        return release.promise.then(() => "slow");
      });
      await started.promise;
      // two leases long: without its renewals (every third of a lease) the delivery would be free
      await time.advance(2 * SHORT);
      expect(await dedup.handle(event, () => "twice")).toEqual({ status: "in-progress" });
      release.resolve();
      expect(await long).toEqual({ status: "handled", result: "slow" });
      expect(await dedup.handle(event, () => "twice")).toEqual({ status: "duplicate" });
    });

    it("runs the next retry once a dead process's lease expires", async () => {
      const key = freshKey();
      const event = eventWith(key);
      // A process took the lease and died without releasing it.
      expect(await store().begin(`webhook:${key}`, "crashed-process", SHORT)).toBe("started");
      const dedup = new WebhookDeduplicator({ store: store() });
      expect(await dedup.handle(event, () => 1)).toEqual({ status: "in-progress" });
      await time.advance(SHORT);
      let outcome = await dedup.handle(event, () => 2);
      for (let waited = 0; outcome.status === "in-progress" && waited < 10 * SHORT; waited += SHORT / 10) {
        await time.advance(SHORT / 10);
        outcome = await dedup.handle(event, () => 2);
      }
      expect(outcome).toEqual({ status: "handled", result: 2 });
    });
  });
}
