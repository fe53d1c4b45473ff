// The retention period as `--retention` and the `retention` option take it, how often the sweep runs
// for it, the sweep's loop (`startRetention`), and the memory-mode sweep on an injected real clock (the
// mock clock does not count).
import { afterEach, describe, expect, it, vi } from "vitest";
import { Account } from "../src/domain/accounts.js";
import { retentionMs } from "../src/domain/retention-period.js";
import { createEngine, type MockEngine } from "../src/index.js";
import { MemoryStore } from "../src/stores/memory/memory-store.js";
import { parseCliArgs, USAGE } from "../src/transports/node/args.js";
import { startRetention, sweepEveryMs } from "../src/work/retention.js";
import { basic, pixPayin, WAIT } from "./fixtures.js";

describe("a retention period", () => {
  it.each([
    ["30d", 30 * 86_400_000],
    ["12h", 12 * 3_600_000],
    ["90m", 90 * 60_000],
    ["45s", 45_000],
    [2_000, 2_000],
    ["off", 0],
    ["0", 0],
    [0, 0],
    [undefined, 0],
  ])("%s is %s ms", (value, ms) => {
    expect(retentionMs(value)).toBe(ms);
  });

  it.each(["30", "1w", "-1d", "1.5h", "", "0d", -5, 1.5])("%s is refused", (value) => {
    expect(() => retentionMs(value)).toThrow(RangeError);
  });

  it.each([
    [2_000, 500],
    [60_000, 15_000],
    [30 * 86_400_000, 5 * 60_000],
    [100, 250],
  ])("a retention of %s ms is swept every %s ms", (retention, every) => {
    expect(sweepEveryMs(retention)).toBe(every);
  });

  it("comes from --retention, which names the forms it takes", () => {
    const options = parseCliArgs(["--retention", "12h"]);
    expect(options !== "help" && options.retention).toBe(12 * 3_600_000);
    const off = parseCliArgs(["--retention", "off"]);
    expect(off !== "help" && off.retention).toBe(0);
    const unset = parseCliArgs([]);
    expect(unset !== "help" && unset.retention).toBeUndefined();
    expect(() => parseCliArgs(["--retention", "soon"])).toThrow(
      "--retention must be a duration such as 30d, 12h or 90m, or 0/off, got soon",
    );
    expect(USAGE).toContain("--retention <duration>");
  });
});

describe("the retention sweep's loop (startRetention)", () => {
  /**
   * A memory store that counts its sweeps and each sweep's purge batches: the first sweep fails, and
   * the first successful one leaves three batches to purge.
   */
  class WatchedStore extends MemoryStore {
    sweeps = 0;
    /** Purge batches after each sweep, by the sweep's number. */
    readonly purges: number[] = [];
    #batchesLeft = 3;
    override async sweep(retention: number): Promise<string[]> {
      this.sweeps += 1;
      if (this.sweeps === 1) throw new Error("the store is out of reach");
      return super.sweep(retention);
    }
    override async purge(): Promise<boolean> {
      this.purges[this.sweeps] = (this.purges[this.sweeps] ?? 0) + 1;
      this.#batchesLeft = Math.max(0, this.#batchesLeft - 1);
      return this.#batchesLeft > 0;
    }
  }

  it("sweeps at once and then again, purges until nothing is left, reports an error and tries again, stops", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const store = new WatchedStore(() => now);
    await store.transaction(async (tx) => {
      tx.insertAccount(new Account("acct_unused", "pk_test_unused", "0".repeat(64), {}));
    });
    const errors: unknown[] = [];
    now += 1_000;
    const stop = startRetention(store, 1_000, (error) => errors.push(error));
    try {
      // the first sweep runs at once, and fails: reported, not thrown
      expect(store.sweeps).toBe(1);
      await vi.waitFor(() => expect(errors).toHaveLength(1), WAIT);
      expect(String(errors[0])).toContain("out of reach");
      expect(store.purges).toEqual([]);
      // the next one (every 250 ms for a retention of 1 s) removes the unused account, then purges
      // batch after batch until the store says nothing is left
      await vi.waitFor(() => expect(store.state.accounts.has("acct_unused")).toBe(false), {
        timeout: 30_000,
      });
      await vi.waitFor(() => expect(store.sweeps).toBeGreaterThanOrEqual(4), { timeout: 30_000 });
      // the second sweep purged until nothing was left; the third (over before the fourth began) looked once
      expect(store.purges[2]).toBe(3);
      expect(store.purges[3]).toBe(1);
    } finally {
      stop();
    }
    const sweeps = store.sweeps;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(store.sweeps).toBe(sweeps);
    expect(errors).toHaveLength(1);
  });
});

describe("the memory sweep", () => {
  let engine: MockEngine | null = null;
  afterEach(() => {
    engine?.close();
    engine = null;
  });

  it("counts on the real clock: an account used within the retention stays, whatever the mock clock says", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    engine = createEngine({ autoAdvance: false, retention: 1_000, now: () => now });
    const used = await engine.control.createAccount({});
    const unused = await engine.control.createAccount({});
    const get = (keys: typeof used) =>
      engine!.handle(
        new Request("http://mock.test/payout?limit=1", { headers: { authorization: basic(keys) } }),
      );
    // the mock clock jumps a year ahead: nobody's last use moves
    await engine.control.setClock({ advanceMs: 365 * 86_400_000 });
    const ids = async () => (await engine!.control.accounts()).map((a) => a.accountId);
    // real time passes in steps shorter than the retention, the used account used at each one
    for (let step = 0; step < 6; step++) {
      now += 400;
      expect((await get(used)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const deadline = Date.now() + 30_000;
    while ((await ids()).includes(unused.accountId) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await ids()).toEqual([engine.account.accountId, used.accountId]);
    expect((await get(unused)).status).toBe(401);
    const created = await engine.handle(
      new Request("http://mock.test/payin", {
        method: "POST",
        headers: { authorization: basic(used), "content-type": "application/json" },
        body: JSON.stringify(pixPayin()),
      }),
    );
    expect(created.status).toBe(201);
  }, 120_000);
});
