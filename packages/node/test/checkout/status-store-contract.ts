// The behaviour every PaymentStatusStore must have, run over the memory store and real Redis (node-redis,
// ioredis) and PostgreSQL alike. "Two instances" are two stores over two clients of the same server.
import { afterEach, describe, expect, it } from "vitest";
import type { PaymentStatus, PaymentStatusStore } from "../../src/checkout/store.js";

/** Two stores that share one backend, as two instances of a merchant's backend do. */
export interface StorePair {
  a: PaymentStatusStore;
  b: PaymentStatusStore;
}

/** How a backend opens a pair, and (for shared stores) counts the connections subscribing opened. */
export interface StoreBackend {
  open(options?: { ttlMs?: number }): Promise<StorePair>;
  /** Connections the backend holds for subscribers right now (omitted for the in-process store). */
  subscriberConnections?(): Promise<number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A payin id no other test of the run uses (stores outlive one test on a shared server). */
export const freshId = () => `pi_contract${process.pid}x${Date.now()}x${counter++}`;

/** A status of `id` at `second` seconds past a fixed instant. */
export function statusOf(id: string, status: string, second = 0, method = "PIX"): PaymentStatus {
  return {
    id,
    status,
    paymentMethod: method,
    updatedAt: new Date(Date.UTC(2025, 0, 1, 12, 0, second)).toISOString(),
  };
}

/** Resolves once `check` holds, polling; fails with `what` after a generous deadline. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Collects what a store delivers. */
export async function record(store: PaymentStatusStore) {
  const seen: PaymentStatus[] = [];
  const unsubscribe = await store.subscribe((status) => seen.push(status));
  return { seen, unsubscribe, of: (id: string) => seen.filter((status) => status.id === id) };
}

export function statusStoreContract(name: string, backend: StoreBackend): void {
  describe(`${name}: the status store contract`, () => {
    const opened: StorePair[] = [];
    const open = async (options?: { ttlMs?: number }) => {
      const pair = await backend.open(options);
      opened.push(pair);
      return pair;
    };
    afterEach(async () => {
      for (const { a, b } of opened.splice(0)) await Promise.all([a.close(), b.close()]);
    });

    it("delivers a status published on one instance to the subscribers of every instance", async () => {
      const { a, b } = await open();
      const [onA, onB] = [await record(a), await record(b)];
      const id = freshId();
      await a.publish(statusOf(id, "PENDING"));
      await eventually(() => onA.of(id).length === 1 && onB.of(id).length === 1, "both instances to hear");
      expect(onB.of(id)).toEqual([statusOf(id, "PENDING")]);
      expect(await b.latest(id)).toEqual(statusOf(id, "PENDING"));
    });

    it("never replaces a final status, and delivers nothing that was not stored", async () => {
      const { a, b } = await open();
      const onB = await record(b);
      const id = freshId();
      const marker = freshId();
      await a.publish(statusOf(id, "APPROVED", 10));
      await b.publish(statusOf(id, "PENDING", 20));
      await a.publish(statusOf(id, "REFUSED", 30), { fresh: true });
      await a.publish(statusOf(marker, "PENDING")); // published last: once it arrives the others have
      await eventually(() => onB.of(marker).length === 1, "the marker");
      expect(onB.of(id)).toEqual([statusOf(id, "APPROVED", 10)]);
      expect(await a.latest(id)).toEqual(statusOf(id, "APPROVED", 10));
      expect(await b.latest(id)).toEqual(statusOf(id, "APPROVED", 10));
    });

    it("keeps the newer status by updatedAt, whichever instance publishes first", async () => {
      const { a, b } = await open();
      const id = freshId();
      await a.publish(statusOf(id, "PENDING_3DS", 20, "CREDIT_CARD"));
      await b.publish(statusOf(id, "PENDING", 10, "CREDIT_CARD"));
      expect(await a.latest(id)).toEqual(statusOf(id, "PENDING_3DS", 20, "CREDIT_CARD"));
      await b.publish(statusOf(id, "APPROVED", 30, "CREDIT_CARD"));
      expect(await a.latest(id)).toEqual(statusOf(id, "APPROVED", 30, "CREDIT_CARD"));
    });

    it("answers null for an id it never saw", async () => {
      const { a } = await open();
      expect(await a.latest(freshId())).toBeNull();
    });

    it("forgets a status after its TTL", async () => {
      const { a, b } = await open({ ttlMs: 3_000 });
      const id = freshId();
      await a.publish(statusOf(id, "PENDING"));
      expect(await b.latest(id)).not.toBeNull();
      await eventually(async () => (await b.latest(id)) === null, "the status to expire");
      // Forgotten means gone: an older status is stored again, as for an id never seen.
      await a.publish(statusOf(id, "PENDING", -30));
      expect(await b.latest(id)).toEqual(statusOf(id, "PENDING", -30));
    });

    it("gives the poll to exactly one of 20 concurrent claimers across instances, then to one per window", async () => {
      const { a, b } = await open();
      const id = freshId();
      const claimAll = (intervalMs: number) =>
        Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claimPoll(id, intervalMs)));
      const first = await claimAll(2_000);
      expect(first.filter(Boolean)).toHaveLength(1);
      await sleep(2_300); // the 2 s window has passed
      const second = await claimAll(60_000);
      expect(second.filter(Boolean)).toHaveLength(1);
      expect(await a.claimPoll(id, 60_000)).toBe(false);
    });

    it("gives the poll to no one while a fresh publish holds the window, and a non-fresh one holds none", async () => {
      const { a, b } = await open();
      const webhooked = freshId();
      await a.publish(statusOf(webhooked, "PENDING"), { fresh: true, pollIntervalMs: 60_000 });
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claimPoll(webhooked, 1_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(0);
      const polled = freshId();
      await a.publish(statusOf(polled, "PENDING"));
      expect(await b.claimPoll(polled, 60_000)).toBe(true);
    });

    it("stops delivering to an unsubscribed listener, and keeps delivering to the others", async () => {
      const { a, b } = await open();
      const gone = await record(b);
      const stays = await record(b);
      await gone.unsubscribe();
      const id = freshId();
      await a.publish(statusOf(id, "PENDING"));
      await eventually(() => stays.of(id).length === 1, "the remaining listener");
      expect(gone.seen).toEqual([]);
    });

    it("keeps delivering to the other listeners when one throws", async () => {
      const { a, b } = await open();
      await b.subscribe(() => {
        throw new Error("a broken listener");
      });
      const after = await record(b);
      const id = freshId();
      await a.publish(statusOf(id, "PENDING"));
      await eventually(() => after.of(id).length === 1, "the listener after the broken one");
    });

    it("closing leaves no subscriber connection behind", async () => {
      const count = backend.subscriberConnections;
      const before = count ? await count() : 0;
      const { a, b } = await open();
      await record(a);
      await record(b);
      if (count) expect(await count()).toBe(before + 2);
      await Promise.all([a.close(), b.close()]);
      if (count) await eventually(async () => (await count()) === before, "the connections to close");
      await a.close(); // closing twice is harmless
    });
  });
}
