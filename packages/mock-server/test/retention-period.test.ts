// The retention period as `--retention` and the `retention` option take it, how often the sweep runs
// for it, and the memory-mode sweep on an injected real clock (the mock clock does not count).
import { afterEach, describe, expect, it } from "vitest";
import { sweepEveryMs } from "../src/domain/retention.js";
import { retentionMs } from "../src/domain/retention-period.js";
import { createEngine, type MockEngine } from "../src/index.js";
import { parseCliArgs, USAGE } from "../src/transports/node/args.js";
import { basic, pixPayin } from "./fixtures.js";

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
