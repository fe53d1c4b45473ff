import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type OrderState,
  orderClaimOf,
  type WebhookEvent,
  WebhookOrderGuard,
  type WebhookOrderStore,
  type WebhookResourceKind,
} from "../src/index.js";
import type { ContractTime } from "./dedupe-contract.js";
import { payinBody, payoutBody } from "./fixtures.js";
import { ORDER_PAIRS, PATHS, permutations } from "./order-tables.js";

const LONG = 60_000;
const T0 = Date.parse("2026-11-22T10:00:00.000Z");

let counter = 0;
/** A resource id no other test of the run uses (stores outlive one test on a shared server). */
function freshId(kind: WebhookResourceKind): string {
  return `${kind === "payout" ? "po" : "pi"}_order_${process.pid}_${Date.now()}_${counter++}`;
}

/** A verified event of `kind` `id` in `status` at `updatedAtMs`, as the parsers give it. */
export function orderEvent(
  kind: WebhookResourceKind,
  id: string,
  status: string,
  updatedAtMs: number,
): WebhookEvent {
  const updatedAt = new Date(updatedAtMs).toISOString();
  const webhookId = `msg_${id}_${status}_${updatedAtMs}`;
  return kind === "payout"
    ? { kind, id, webhookId, data: { ...payoutBody, id, status, updatedAt } }
    : { kind, id, webhookId, data: { ...payinBody, id, status, updatedAt } };
}

const claim = (status: string, updatedAtMs = T0) =>
  orderClaimOf("payout", status, new Date(updatedAtMs).toISOString());

/**
 * The behaviour every {@link WebhookOrderStore} must have, through the store and through the guard,
 * run against the memory store and the real Redis and PostgreSQL servers alike.
 */
export function orderStoreContract(name: string, store: () => WebhookOrderStore, time: ContractTime): void {
  const SHORT = time.shortMs;
  const pause = time.fake
    ? async () => {
        for (let tick = 0; tick < 3; tick += 1) await Promise.resolve();
      }
    : () => new Promise((resolve) => setTimeout(resolve, 2));

  /** Polls until `check` holds, as a later delivery would find the store (expiry is the server's). */
  async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
    let value = await read();
    for (let waited = 0; !check(value) && waited < 10 * SHORT; waited += SHORT / 10) {
      await time.advance(SHORT / 10);
      value = await read();
    }
    return value;
  }

  function useClock(): void {
    if (!time.fake) return;
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });
  }

  describe(`${name}: the order store contract`, () => {
    useClock();

    it("answers every pair of the transition tables as the hand-written tables say", async () => {
      const guard = new WebhookOrderGuard({ store: store() });
      const seen = await Promise.all(
        ORDER_PAIRS.flatMap((pair) =>
          [0, 1, -1].map(async (ms) => {
            const id = freshId(pair.kind);
            const updatedAt = new Date(T0).toISOString();
            await guard.remember(pair.kind, { id, status: pair.known, updatedAt });
            const outcome = await guard.handle(
              orderEvent(pair.kind, id, pair.incoming, T0 + ms),
              () => "ran",
            );
            const after = await guard.known(pair.kind, id);
            return {
              pair: `${pair.kind} ${pair.known} → ${pair.incoming} (${ms} ms)`,
              verdict: outcome.status,
              moved: after?.status === pair.incoming && after.updatedAtMs === T0 + ms,
            };
          }),
        ),
      );
      const expected = ORDER_PAIRS.flatMap((pair) =>
        [0, 1, -1].map((ms) => {
          const verdict = ms < 0 ? "stale" : pair.verdict;
          return {
            pair: `${pair.kind} ${pair.known} → ${pair.incoming} (${ms} ms)`,
            verdict,
            // a repeat at the same time leaves what it found, which is what it would have written
            moved: verdict === "forward" || (verdict === "repeat" && ms === 0),
          };
        }),
      );
      expect(seen).toEqual(expected);
    });

    it("a forward event waits while another attempt moves the resource; a stale one is told at once", async () => {
      const key = `payout:${freshId("payout")}`;
      await store().commit(key, claim("PENDING"), "", LONG);
      expect(await store().begin(key, claim("PROCESSING", T0 + 1), "a", LONG)).toEqual({
        answer: "started",
        previous: { status: "PENDING", updatedAtMs: T0 },
      });
      expect(await store().begin(key, claim("COMPLETED", T0 + 2), "b", LONG)).toEqual({
        answer: "in-progress",
      });
      expect(await store().begin(key, claim("PENDING"), "c", LONG)).toEqual({
        answer: "repeat",
        known: { status: "PENDING", updatedAtMs: T0 },
      });
      expect(await store().commit(key, claim("PROCESSING", T0 + 1), "a", LONG)).toBe("forward");
      expect(await store().begin(key, claim("COMPLETED", T0 + 2), "b", LONG)).toMatchObject({
        answer: "started",
      });
    });

    it("release frees only the caller's own lease, and leaves no state behind a first attempt", async () => {
      const key = `payout:${freshId("payout")}`;
      await store().begin(key, claim("PROCESSING"), "a", LONG);
      await store().release(key, "intruder");
      expect(await store().begin(key, claim("PROCESSING"), "b", LONG)).toEqual({ answer: "in-progress" });
      await store().release(key, "a");
      expect(await store().read(key)).toBeNull();
      expect(await store().begin(key, claim("PROCESSING"), "b", LONG)).toEqual({
        answer: "started",
        previous: null,
      });
    });

    it("an expired lease is taken over, and its late owner's commit never moves the resource back", async () => {
      const key = `payout:${freshId("payout")}`;
      await store().commit(key, claim("PENDING"), "", LONG);
      await store().begin(key, claim("PROCESSING", T0 + 1), "dead", SHORT);
      await time.advance(SHORT);
      const next = await eventually(
        async () => store().begin(key, claim("COMPLETED", T0 + 2), "next", LONG),
        (answer) => answer.answer === "started",
      );
      expect(next).toMatchObject({ answer: "started", previous: { status: "PENDING" } });
      expect(await store().commit(key, claim("COMPLETED", T0 + 2), "next", LONG)).toBe("forward");
      // The first attempt wakes up and commits what it held: too late, COMPLETED stays.
      expect(await store().commit(key, claim("PROCESSING", T0 + 1), "dead", LONG)).toBe("stale");
      expect(await store().renew(key, "dead", LONG)).toBe(false);
      expect(await store().read(key)).toEqual({ status: "COMPLETED", updatedAtMs: T0 + 2 });
    });

    it("renew extends only the owner's lease", async () => {
      const key = `payout:${freshId("payout")}`;
      await store().begin(key, claim("PROCESSING"), "a", SHORT);
      expect(await store().renew(key, "a", LONG)).toBe(true);
      expect(await store().renew(key, "b", LONG)).toBe(false);
      // past the first lease: only the renewal keeps the resource
      await time.advance(SHORT + SHORT / 2);
      expect(await store().begin(key, claim("COMPLETED", T0 + 1), "b", LONG)).toEqual({
        answer: "in-progress",
      });
    });

    it("forgets a resource after its TTL: its next event is forward with nothing known", async () => {
      const guard = new WebhookOrderGuard({ store: store(), ttlMs: SHORT });
      const id = freshId("payout");
      await guard.handle(orderEvent("payout", id, "COMPLETED", T0 + 2), () => undefined);
      expect(await guard.known("payout", id)).toEqual({ status: "COMPLETED", updatedAtMs: T0 + 2 });
      await time.advance(SHORT);
      expect(
        await eventually(
          () => guard.known("payout", id),
          (state) => state === null,
        ),
      ).toBeNull();
      const late = await guard.handle(
        orderEvent("payout", id, "PROCESSING", T0 + 1),
        (_e, previous) => previous,
      );
      expect(late).toEqual({ status: "forward", result: null, previous: null });
    });

    it("of 40 concurrent attempts on one resource exactly one starts", async () => {
      const key = `payout:${freshId("payout")}`;
      const statuses = ["PROCESSING", "COMPLETED", "REFUNDED", "FAILED"];
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store().begin(key, claim(statuses[i % 4] as string, T0 + (i % 4)), `t${i}`, LONG),
        ),
      );
      expect(answers.filter((a) => a.answer === "started")).toHaveLength(1);
      expect(answers.filter((a) => a.answer === "in-progress")).toHaveLength(39);
    });
  });

  describe(`${name}: WebhookOrderGuard`, () => {
    useClock();

    /** Feeds a path's events in `order`; answers the statuses the handler applied, in order. */
    async function feed(
      guard: WebhookOrderGuard,
      kind: WebhookResourceKind,
      id: string,
      path: readonly string[],
      order: readonly string[],
      sameTime: boolean,
    ): Promise<string[]> {
      const applied: string[] = [];
      for (const status of order) {
        const at = sameTime ? T0 : T0 + 1_000 * path.indexOf(status);
        const outcome = await guard.handle(orderEvent(kind, id, status, at), (e) =>
          applied.push(e.data.status),
        );
        expect(outcome.status).not.toBe("in-progress");
      }
      return applied;
    }

    it("every order of every path's events ends at the path's last status, never moving back", async () => {
      const guard = new WebhookOrderGuard({ store: store() });
      const runs = PATHS.flatMap(({ kind, statuses }) =>
        permutations(statuses).flatMap((order) =>
          [false, true].map(async (sameTime) => {
            const id = freshId(kind);
            const applied = await feed(guard, kind, id, statuses, order, sameTime);
            const known = await guard.known(kind, id);
            return {
              run: `${kind} ${order.join(",")}${sameTime ? " (one updatedAt)" : ""}`,
              // applied in the path's order: a subsequence of it, never a step back
              forwardOnly: applied.every(
                (s, i) => i === 0 || statuses.indexOf(s) > statuses.indexOf(applied[i - 1] as string),
              ),
              last: applied.at(-1),
              known: known?.status,
              end: statuses.at(-1),
            };
          }),
        ),
      );
      const results = await Promise.all(runs);
      // 24 + 6 + 6 + 120 + 2 + 2 + 2 + 2 orders, each with its own times and with one updatedAt for all
      expect(results).toHaveLength(2 * 164);
      for (const { run, forwardOnly, last, known, end } of results) {
        expect({ forwardOnly, last, known }, run).toEqual({ forwardOnly: true, last: end, known: end });
      }
    });

    it("every order of a payout's events sent at once, the sender retrying what is in progress, ends at its last status", async () => {
      const guard = new WebhookOrderGuard({ store: store() });
      const overlaps: string[] = [];
      const runs = PATHS.filter((p) => p.kind === "payout" && p.statuses.length >= 4).flatMap(
        ({ kind, statuses }) =>
          permutations(statuses).map(async (order) => {
            const id = freshId(kind);
            const applied: Array<{ status: string; previous: string | null }> = [];
            let running = 0;
            await Promise.all(
              order.map(async (status) => {
                const event = orderEvent(kind, id, status, T0 + 1_000 * statuses.indexOf(status));
                for (;;) {
                  const outcome = await guard.handle(event, async (e, previous: OrderState | null) => {
                    running += 1;
                    if (running > 1) overlaps.push(`${id} ${e.data.status}`);
                    await pause();
                    applied.push({ status: e.data.status, previous: previous?.status ?? null });
                    running -= 1;
                  });
                  if (outcome.status !== "in-progress") break;
                  await pause();
                }
              }),
            );
            return { id, order, applied, known: (await guard.known(kind, id))?.status, end: statuses.at(-1) };
          }),
      );
      for (const run of await Promise.all(runs)) {
        const where = `${run.order.join(",")}: ${JSON.stringify(run.applied)}`;
        expect(run.known, where).toBe(run.end);
        expect(run.applied.at(-1)?.status, where).toBe(run.end);
        // each handler saw the state the previous one left: no two moved the resource from one place
        run.applied.forEach((step, i) => {
          expect(step.previous, where).toBe(i === 0 ? null : run.applied[i - 1]?.status);
        });
      }
      expect(overlaps).toEqual([]);
    });

    it("a handler that throws leaves the resource where it was, and the retry applies the event", async () => {
      const guard = new WebhookOrderGuard({ store: store() });
      const id = freshId("payout");
      await guard.remember("payout", { id, status: "PROCESSING", updatedAt: new Date(T0).toISOString() });
      const completed = orderEvent("payout", id, "COMPLETED", T0 + 1);
      await expect(
        guard.handle(completed, () => {
          throw new Error("database down");
        }),
      ).rejects.toThrow("database down");
      expect(await guard.known("payout", id)).toEqual({ status: "PROCESSING", updatedAtMs: T0 });
      expect(await guard.handle(completed, (_e, previous) => previous?.status)).toEqual({
        status: "forward",
        result: "PROCESSING",
        previous: { status: "PROCESSING", updatedAtMs: T0 },
      });
      expect(await guard.handle(completed, () => "twice")).toEqual({
        status: "repeat",
        known: { status: "COMPLETED", updatedAtMs: T0 + 1 },
      });
    });

    it("renews the lease while a long handler runs", async () => {
      const guard = new WebhookOrderGuard({ store: store(), leaseMs: SHORT });
      const id = freshId("payout");
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => {
        finish = resolve;
      });
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const long = guard.handle(orderEvent("payout", id, "PROCESSING", T0), async () => {
        started();
        await finished;
        return "slow";
      });
      await running;
      // two leases long: without its renewals (every third of a lease) the resource would be free
      await time.advance(2 * SHORT);
      expect(await guard.handle(orderEvent("payout", id, "COMPLETED", T0 + 1), () => "raced")).toEqual({
        status: "in-progress",
      });
      finish();
      expect(await long).toMatchObject({ status: "forward", result: "slow" });
    });

    it("remember records a status learned elsewhere, so a late event is judged against it", async () => {
      const guard = new WebhookOrderGuard({ store: store() });
      const id = freshId("payin");
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      expect(await guard.remember("payin", { id, status: "PENDING", updatedAt: at(0) })).toBe("forward");
      expect(await guard.remember("payin", { id, status: "APPROVED", updatedAt: at(5) })).toBe("forward");
      expect(await guard.remember("payin", { id, status: "PENDING", updatedAt: at(0) })).toBe("stale");
      expect(await guard.remember("payin", { id, status: "APPROVED", updatedAt: at(5) })).toBe("repeat");
      expect(await guard.handle(orderEvent("payin", id, "EXPIRED", T0 + 9), () => "never")).toEqual({
        status: "stale",
        known: { status: "APPROVED", updatedAtMs: T0 + 5 },
      });
    });
  });
}
