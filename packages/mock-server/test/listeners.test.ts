// The listeners of `paykit-mock listen`, without HTTP: who takes an account's attempts, for how long,
// and what becomes of an attempt nobody answers. Real time is played with fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  eventMatches,
  LISTENER_LEASE_MS,
  type ListenAttempt,
  MAX_LISTEN_WAIT_MS,
} from "../src/domain/listeners.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { ListenerHub } from "../src/work/listeners.js";

/** A process's listeners over a memory store; `onAttach` hears each attach (a first poll, a lapsed lease). */
function hubOf(onAttach: (accountId: string) => void): ListenerHub {
  return new ListenerHub(new MemoryStore(() => Date.now()), "this-process", (accountId, attached) => {
    if (attached) onAttach(accountId);
  });
}

const attempt = (n: number, status = "APPROVED"): Omit<ListenAttempt, "attemptId"> => ({
  deliveryId: `wh_${n}`,
  webhookId: `msg_${n}`,
  event: `payin.${status.toLowerCase()}`,
  resource: "payin",
  resourceId: `pi_${n}`,
  status,
  url: "http://localhost:3000/webhooks",
  headers: { "webhook-id": `msg_${n}` },
  body: "{}",
});

let attached: string[];
let listeners: ListenerHub;
beforeEach(() => {
  // setImmediate stays real: a poll woken by an attempt waits one turn for the rest of the burst
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  attached = [];
  listeners = hubOf((accountId) => attached.push(accountId));
});
afterEach(() => {
  listeners.close();
  vi.useRealTimers();
});

describe("an account's listener", () => {
  it("attaches on its first poll, and takes the account's attempts only while it polls or within the lease", async () => {
    expect(listeners.takes("acct_a", "payin.approved")).toBe(false);
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    expect(attached).toEqual(["acct_a"]);
    expect(listeners.takes("acct_a", "payin.approved")).toBe(true);
    expect(listeners.takes("acct_b", "payin.approved")).toBe(false);
    vi.advanceTimersByTime(LISTENER_LEASE_MS - 1);
    expect(listeners.takes("acct_a", "payin.approved")).toBe(true);
    vi.advanceTimersByTime(1);
    expect(listeners.takes("acct_a", "payin.approved")).toBe(false);
    // a poll under way keeps it attached however long it waits (once it took its lease from the store)
    const waiting = listeners.poll("acct_a", { listener: "listener-one" });
    await vi.advanceTimersByTimeAsync(0);
    vi.advanceTimersByTime(LISTENER_LEASE_MS + 1);
    expect(listeners.takes("acct_a", "payin.approved")).toBe(true);
    await vi.advanceTimersByTimeAsync(MAX_LISTEN_WAIT_MS);
    expect(await waiting).toEqual({ attempts: [], takenOver: false });
    // its lease had lapsed: that poll attached it again (what waited is sent to it at once)
    expect(attached).toEqual(["acct_a", "acct_a"]);
  });

  it("hands an attempt to the poll waiting, and its ack is the attempt's outcome", async () => {
    const first = listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    await first;
    const waiting = listeners.poll("acct_a", { listener: "listener-one" });
    const outcome = listeners.offer("acct_a", attempt(1), 10_000);
    await vi.advanceTimersByTimeAsync(0);
    const { attempts } = await waiting;
    expect(attempts.map((a) => a.webhookId)).toEqual(["msg_1"]);
    const ack = { attemptId: attempts[0]!.attemptId, statusCode: 204, error: null };
    void listeners.poll("acct_a", { listener: "listener-one", acks: [ack], waitMs: 0 });
    expect(await outcome).toEqual({ statusCode: 204, error: null });
  });

  it("hands an unanswered attempt out again (an answer lost on the way), and fails it once its time and the ack's grace are up", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const outcome = listeners.offer("acct_a", attempt(1), 10_000);
    const once = await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const again = await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    expect(again.attempts.map((a) => a.attemptId)).toEqual(once.attempts.map((a) => a.attemptId));
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(10_000 + 4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual({ statusCode: null, error: "no answer from the listener within 10000 ms" });
    expect((await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 })).attempts).toEqual([]);
  });

  it("fails an attempt no poll takes within the lease (the listener died mid-poll)", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const outcome = listeners.offer("acct_a", attempt(1), 10_000);
    await vi.advanceTimersByTimeAsync(LISTENER_LEASE_MS);
    expect(await outcome).toEqual({ statusCode: null, error: "the listener went away before taking it" });
  });

  it("is taken over by a new listener; the first is told, in the poll it waits in and in every later one", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const firstWaiting = listeners.poll("acct_a", { listener: "listener-one" });
    await listeners.poll("acct_a", { listener: "listener-two", waitMs: 0 });
    expect(attached).toEqual(["acct_a", "acct_a"]);
    expect(await firstWaiting).toEqual({ attempts: [], takenOver: true });
    expect(await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 })).toEqual({
      attempts: [],
      takenOver: true,
    });
    expect(listeners.takes("acct_a", "payin.approved")).toBe(true);
  });

  it("gives the new listener what the first was handed and did not answer", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const outcome = listeners.offer("acct_a", attempt(1), 10_000);
    const handed = await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const second = await listeners.poll("acct_a", { listener: "listener-two", waitMs: 0 });
    expect(second.attempts.map((a) => a.attemptId)).toEqual(handed.attempts.map((a) => a.attemptId));
    const ack = { attemptId: second.attempts[0]!.attemptId, statusCode: 200, error: null };
    await listeners.poll("acct_a", { listener: "listener-two", acks: [ack], waitMs: 0 });
    expect(await outcome).toEqual({ statusCode: 200, error: null });
  });

  it("detaches when it stops: attempts it held fail at once, and the account's go to their URL again", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    const outcome = listeners.offer("acct_a", attempt(1), 10_000);
    await listeners.poll("acct_a", { listener: "listener-one", detach: true });
    expect(await outcome).toEqual({ statusCode: null, error: "the listener stopped before answering" });
    expect(listeners.takes("acct_a", "payin.approved")).toBe(false);
  });

  it("takes only the events it asked for", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", events: ["payout.*"], waitMs: 0 });
    expect(listeners.takes("acct_a", "payout.completed")).toBe(true);
    expect(listeners.takes("acct_a", "payin.approved")).toBe(false);
    expect(eventMatches(["payin.approved"], "payin.approved")).toBe(true);
    expect(eventMatches(["payin.approved"], "payin.approved_x")).toBe(false);
    expect(eventMatches(["payin.*"], "payout.failed")).toBe(false);
    expect(eventMatches(null, "payout.failed")).toBe(true);
  });

  it("hands out at most 100 attempts per poll, oldest first", async () => {
    await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    for (let n = 0; n < 150; n++) void listeners.offer("acct_a", attempt(n), 10_000);
    const { attempts } = await listeners.poll("acct_a", { listener: "listener-one", waitMs: 0 });
    expect(attempts.map((a) => a.webhookId)).toEqual(Array.from({ length: 100 }, (_, n) => `msg_${n}`));
  });
});
