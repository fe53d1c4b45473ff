// The claim rules of webhook attempts, on both kinds of store (docs/decisions/sandbox-store.md,
// "Deliveries are a queue"): the memory store's `claimable` (stores/memory/claims.ts) and the SQL stores'
// one statement (stores/sql/claims.ts), here on PGlite. A process claims an attempt with a lease; a
// listened account's events of one resource go oldest first; an out-of-order batch waits for its hold,
// then goes newest first; an account whose `paykit-mock listen` another process holds is not this
// one's; `openAttempts` (what flushes wait for) counts what is leased, or due and free. The test moves
// the stores' clock itself, and plays the processes by their owner names.
import { WEBHOOK_RETRY_DELAYS_MS } from "@paykit/contract";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Account, type CreateAccountParams } from "../src/domain/accounts.js";
import { type DeliveryRecord, newDelivery, recordAttempt } from "../src/domain/deliveries.js";
import { UlidFactory } from "../src/domain/ids.js";
import type { ClaimedAttempt, SandboxStore } from "../src/domain/repository.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { SqlStore } from "../src/stores/sql/sql-store.js";
import { databaseFor, emptyTables, warmStore } from "./durable-harness.js";

const LEASE_MS = 10_000;
const URL = "http://127.0.0.1:9/webhooks";

describe.each(["memory", "pglite"] as const)("the claims of webhook attempts (%s store)", (kind) => {
  beforeAll(() => warmStore(kind), 120_000);
  let store: SandboxStore;
  let now: number;
  const ids = new UlidFactory();
  afterEach(async () => {
    await store?.close();
  });

  async function open(): Promise<void> {
    now = Date.now();
    if (kind === "memory") {
      store = new MemoryStore(() => now);
      return;
    }
    const db = await databaseFor("pglite");
    await emptyTables(db);
    store = new SqlStore(db, { kind: "embedded", description: "pglite", keepDatabase: true, now: () => now });
  }

  async function account(params: CreateAccountParams = {}): Promise<string> {
    const id = `acct_${ids.next(now)}`;
    await store.transaction(async (tx) => {
      tx.insertAccount(new Account(id, `pk_test_${id}`, "0".repeat(64), params));
    });
    return id;
  }

  /** Queues status changes' deliveries, in this order, due now (held first in out-of-order mode). */
  async function queue(
    accountId: string,
    events: Array<[resource: "payin" | "payout", resourceId: string, status: string]>,
    outOfOrder = false,
  ): Promise<string[]> {
    const queued = events.map(([resource, resourceId, status]) =>
      newDelivery(
        {
          accountId,
          resource,
          resourceId,
          status,
          url: URL,
          body: { id: resourceId, status },
          duplicate: false,
          outOfOrder,
          trace: null,
        },
        ids.next(now),
        now,
        now,
      ),
    );
    await store.transaction(async (tx) => {
      for (const delivery of queued) tx.insertDelivery(delivery);
    });
    return queued.map((d) => d.id);
  }

  const claim = (
    owner: string,
    options: { accountId?: string; ids?: readonly string[]; leaseMs?: number } = {},
  ) => store.claimAttempts(owner, { limit: 100, leaseMs: LEASE_MS, ...options });
  const idsOf = (claims: ClaimedAttempt[]) => claims.map((c) => c.delivery.id);

  /** Makes a claimed attempt with the receiver's `statusCode`, and stores its outcome; answers whether the claim held. */
  async function finish(owner: string, claimed: ClaimedAttempt, statusCode: number): Promise<boolean> {
    const outcome: DeliveryRecord = structuredClone(claimed.delivery);
    recordAttempt(outcome, { statusCode, error: null }, claimed.accountNow);
    return store.finishAttempt(owner, claimed, outcome);
  }

  /** The one claim of `id` in `claims`. */
  const of = (claims: ClaimedAttempt[], id: string) => claims.find((c) => c.delivery.id === id)!;

  it("claims a listened account's events of one resource oldest first: a later one waits while an older one is pending", async () => {
    await open();
    const a = await account();
    await store.holdListener(a, "p1", "listener-1", 60_000, null);
    const [processing, completed, other] = await queue(a, [
      ["payout", "po_1", "PROCESSING"],
      ["payout", "po_1", "COMPLETED"],
      ["payout", "po_2", "PROCESSING"],
    ]);
    const first = await claim("p1");
    // COMPLETED waits behind PROCESSING; another resource does not
    expect(idsOf(first)).toEqual([processing, other]);
    // PROCESSING's attempt under way: COMPLETED still waits
    expect(await claim("p1")).toEqual([]);
    // PROCESSING failed, its retry is later: COMPLETED still waits for it
    expect(await finish("p1", of(first, processing!), 500)).toBe(true);
    expect(await finish("p1", of(first, other!), 204)).toBe(true);
    expect(await claim("p1")).toEqual([]);
    // its retry's time comes: PROCESSING goes again, alone
    now += WEBHOOK_RETRY_DELAYS_MS[0]!;
    const retry = await claim("p1");
    expect(idsOf(retry)).toEqual([processing]);
    expect(await finish("p1", retry[0]!, 204)).toBe(true);
    // delivered: COMPLETED goes
    expect(idsOf(await claim("p1"))).toEqual([completed]);
  });

  it("brings an older pending event of the resource forward when asked (a later one was queued)", async () => {
    await open();
    const a = await account();
    await store.holdListener(a, "p1", "listener-1", 60_000, null);
    const [processing] = await queue(a, [["payout", "po_1", "PROCESSING"]]);
    const [first] = await claim("p1");
    expect(await finish("p1", first!, 503)).toBe(true);
    const [completed] = await queue(a, [["payout", "po_1", "COMPLETED"]]);
    expect(await claim("p1")).toEqual([]);
    await store.bringForward(a, null, ["po_1"]);
    const [again] = await claim("p1");
    expect(again?.delivery.id).toBe(processing);
    expect(await finish("p1", again!, 204)).toBe(true);
    expect(idsOf(await claim("p1"))).toEqual([completed]);
  });

  it("never holds back an event the listener does not take (its events filter)", async () => {
    await open();
    const a = await account();
    // the listener takes PROCESSING only: COMPLETED goes to its URL, whatever PROCESSING's state
    await store.holdListener(a, "p1", "listener-1", 60_000, ["payout.processing"]);
    const [processing, completed] = await queue(a, [
      ["payout", "po_1", "PROCESSING"],
      ["payout", "po_1", "COMPLETED"],
    ]);
    const first = await claim("p1", { ids: [processing!] });
    expect(await finish("p1", first[0]!, 500)).toBe(true);
    expect(idsOf(await claim("p1"))).toEqual([completed]);

    // the same with a listener of every event: COMPLETED waits
    const b = await account();
    await store.holdListener(b, "p1", "listener-2", 60_000, null);
    const [bProcessing] = await queue(b, [["payout", "po_1", "PROCESSING"]]);
    const bFirst = await claim("p1", { ids: [bProcessing!] });
    expect(await finish("p1", bFirst[0]!, 500)).toBe(true);
    await queue(b, [["payout", "po_1", "COMPLETED"]]);
    expect(await claim("p1", { accountId: b })).toEqual([]);
  });

  it("holds an out-of-order batch until its hold ends, then claims it newest first", async () => {
    await open();
    const ooo = await account({ webhookOutOfOrder: true });
    const plain = await account();
    const batch = await queue(
      ooo,
      [
        ["payin", "pi_1", "APPROVED"],
        ["payout", "po_1", "PROCESSING"],
        ["payout", "po_1", "COMPLETED"],
      ],
      true,
    );
    const [elsewhere] = await queue(plain, [["payin", "pi_2", "APPROVED"]]);
    // held: another account's event is not
    expect(idsOf(await claim("p1"))).toEqual([elsewhere]);
    expect(await store.openAttempts({ accountId: ooo })).toBe(0);
    // the hold ends, and a new event of the batch comes with its own hold: the batch waits for it
    now += 60;
    const [late] = await queue(ooo, [["payin", "pi_3", "APPROVED"]], true);
    expect(await claim("p1", { accountId: ooo })).toEqual([]);
    now += 60;
    expect(idsOf(await claim("p1", { accountId: ooo }))).toEqual([late, ...[...batch].reverse()]);
  });

  it("lets a held batch go at once when its holds are released (a flush)", async () => {
    await open();
    const ooo = await account({ webhookOutOfOrder: true });
    const batch = await queue(
      ooo,
      [
        ["payin", "pi_1", "APPROVED"],
        ["payin", "pi_2", "APPROVED"],
      ],
      true,
    );
    expect(await claim("p1")).toEqual([]);
    await store.releaseHolds(ooo);
    expect(idsOf(await claim("p1"))).toEqual([...batch].reverse());
  });

  it("blocks a second claim while a lease lives; an expired lease lets another process claim, and the first one's outcome is refused", async () => {
    await open();
    const a = await account();
    const [id] = await queue(a, [["payin", "pi_1", "APPROVED"]]);
    const [first] = await claim("p1", { leaseMs: 1_000 });
    expect(first?.delivery.id).toBe(id);
    expect(await claim("p2")).toEqual([]);
    expect(await claim("p1")).toEqual([]);
    expect(await claim("p2", { ids: [id!] })).toEqual([]);
    // p1 was killed mid-attempt: once its lease ends, p2 makes the attempt
    now += 1_001;
    const [second] = await claim("p2");
    expect(second?.delivery.id).toBe(id);
    expect(second?.cycleAttempts).toBe(0);
    expect(await finish("p1", first!, 204)).toBe(false);
    expect(await finish("p2", second!, 204)).toBe(true);
    expect(await claim("p1")).toEqual([]);
    const stored = await store.transaction((tx) => tx.delivery(id!));
    expect(stored?.state).toBe("delivered");
    expect(stored?.attempts).toHaveLength(1);
  });

  it("renews only the leases its owner still holds: a renewed claim outlives its first term, a taken-over one stays taken", async () => {
    await open();
    const a = await account();
    const [kept, lost] = await queue(a, [
      ["payin", "pi_kept", "APPROVED"],
      ["payin", "pi_lost", "APPROVED"],
    ]);
    const claimed = await claim("p1", { leaseMs: 1_000 });
    expect(idsOf(claimed).sort()).toEqual([kept!, lost!].sort());
    // p1 renews `kept` half-way through its term; `lost` it does not (a process frozen for that one)
    now += 500;
    await store.renewClaims("p1", [kept!], 1_000);
    // a renewal by another owner changes nothing
    await store.renewClaims("p2", [lost!], 60_000);
    now += 501;
    expect(idsOf(await claim("p2"))).toEqual([lost!]);
    // p1's late renewal of what p2 now holds does not take it back, and its outcome is refused
    await store.renewClaims("p1", [lost!], 60_000);
    expect(await finish("p1", claimed.find((c) => c.delivery.id === lost)!, 204)).toBe(false);
    // once p1 stops renewing, `kept` is free 1 s after its last renewal; `lost` is still p2's
    now += 1_001;
    expect(idsOf(await claim("p3"))).toEqual([kept!]);
  });

  it("frees every claim of an owner that stops, and no other owner's", async () => {
    await open();
    const a = await account();
    const [mine, theirs] = await queue(a, [
      ["payin", "pi_mine", "APPROVED"],
      ["payin", "pi_theirs", "APPROVED"],
    ]);
    expect(idsOf(await claim("p1", { ids: [mine!] }))).toEqual([mine!]);
    expect(idsOf(await claim("p2", { ids: [theirs!] }))).toEqual([theirs!]);
    await store.releaseClaims("p1");
    // no time passed: p1's attempt is free at once, p2's still held
    expect(idsOf(await claim("p3"))).toEqual([mine!]);
  });

  it("leaves an account whose listener another process holds to that process, until the listener's lease ends", async () => {
    await open();
    const a = await account();
    await store.holdListener(a, "p1", "listener-1", 1_000, null);
    const [id] = await queue(a, [["payin", "pi_1", "APPROVED"]]);
    expect(await claim("p2")).toEqual([]);
    expect(await claim("p2", { accountId: a })).toEqual([]);
    expect(await claim("p2", { ids: [id!] })).toEqual([]);
    expect(await store.listenerOf(a)).toMatchObject({ owner: "p1", listener: "listener-1" });
    // the listener stopped polling: its lease ends, the account's attempts are anyone's again
    now += 1_001;
    expect(await store.listenerOf(a)).toBeNull();
    expect(idsOf(await claim("p2"))).toEqual([id]);
  });

  it("leaves the listened account's events to the listener's process, which claims them", async () => {
    await open();
    const a = await account();
    await store.holdListener(a, "p1", "listener-1", 60_000, null);
    const [id] = await queue(a, [["payin", "pi_1", "APPROVED"]]);
    expect(await claim("p2")).toEqual([]);
    expect(idsOf(await claim("p1"))).toEqual([id]);
    // a listener that stopped lets them go at once
    await store.holdListener(a, "p1", "listener-1", 60_000, null);
    const [next] = await queue(a, [["payin", "pi_2", "APPROVED"]]);
    await store.dropListener(a, "listener-1");
    expect(idsOf(await claim("p2"))).toEqual([next]);
  });

  it("counts as open what is leased, or due and free for some process; not a retry to come, a held event or a waiting one", async () => {
    await open();
    const a = await account();
    const listened = await account();
    const ooo = await account({ webhookOutOfOrder: true });
    const [leased, due, retrying, delivered] = await queue(a, [
      ["payin", "pi_1", "APPROVED"],
      ["payin", "pi_2", "APPROVED"],
      ["payin", "pi_3", "APPROVED"],
      ["payin", "pi_4", "APPROVED"],
    ]);
    const claimed = await claim("p1", { ids: [leased!, retrying!, delivered!] });
    expect(await finish("p1", of(claimed, retrying!), 500)).toBe(true);
    expect(await finish("p1", of(claimed, delivered!), 204)).toBe(true);
    expect(await store.openAttempts({ accountId: a })).toBe(2);
    expect(await store.openAttempts({ ids: [leased!] })).toBe(1);
    expect(await store.openAttempts({ ids: [due!] })).toBe(1);
    expect(await store.openAttempts({ ids: [retrying!, delivered!] })).toBe(0);
    // a listened account (another process's listener): its first event is open, the one behind it waits
    await store.holdListener(listened, "p2", "listener-2", 60_000, null);
    const [older, later] = await queue(listened, [
      ["payout", "po_1", "PROCESSING"],
      ["payout", "po_1", "COMPLETED"],
    ]);
    expect(await store.openAttempts({ ids: [older!] })).toBe(1);
    expect(await store.openAttempts({ ids: [later!] })).toBe(0);
    // a held out-of-order event is not open until its hold ends
    await queue(ooo, [["payin", "pi_5", "APPROVED"]], true);
    expect(await store.openAttempts({ accountId: ooo })).toBe(0);
    expect(await store.openAttempts({})).toBe(3);
    now += 60;
    expect(await store.openAttempts({ accountId: ooo })).toBe(1);
    // a lease that ended is open as due and free: counted once
    now += LEASE_MS;
    expect(await store.openAttempts({ ids: [leased!] })).toBe(1);
    // the retry's time comes
    now += WEBHOOK_RETRY_DELAYS_MS[0]!;
    expect(await store.openAttempts({ accountId: a })).toBe(3);
  });
});
