// `kill -9` of a durable mock in the middle of a load, then a start on the same store: every payin and
// payout answered 201 is there, the balance equals what its payins credit and its payouts debit, no
// referenceId exists twice, and every event is delivered, once per status change (a re-sent event
// keeps its webhook-id).
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  expectNothingLost,
  killAll,
  newDatabase,
  runLoad,
  startMockProcess,
  webhookReceiver,
} from "./processes.js";

const KEYS = { publicKey: "pk_test_killnine01", secretKey: "sk_test_killnine01" };

const dirs: string[] = [];
afterEach(killAll);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const STORES = {
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-kill-"));
    dirs.push(dir);
    return ["--data-dir", dir];
  },
  postgres: async () => ["--store", await newDatabase("kill")],
};

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])(
  "kill -9 of a mock on %s under load",
  (kind) => {
    it("loses no answered payin or payout, no money and no event", async () => {
      const storeArgs = [...(await STORES[kind]()), "--manual"];
      const hook = await webhookReceiver();
      let mock = await startMockProcess(KEYS, storeArgs);
      let killed = false;
      // each client uses one referenceId twice in every seven payouts, on purpose
      const load = runLoad({
        keys: KEYS,
        target: () => mock.url,
        referenceOf: (n, i) => `kill-${n}-${i % 7 === 6 ? i - 1 : i}`,
        amountOf: (n) => 1_000 + n,
        webhookUrl: hook.url,
        stopped: () => killed,
      });
      // PGlite on a busy 2-core machine answers a few requests a second: enough to be mid-load
      await expect.poll(() => load.outcome.answered, { timeout: 60_000, interval: 20 }).toBeGreaterThan(30);
      mock.child.kill("SIGKILL");
      killed = true;
      await once(mock.child, "exit");
      await load.done;
      expect(load.outcome.createdPayouts.size).toBeGreaterThan(10);
      console.log(
        `${kind}: kill -9 after ${load.outcome.createdPayouts.size} payouts and ${load.outcome.paidPayins.size} paid payins were answered`,
      );

      mock = await startMockProcess(KEYS, storeArgs);
      try {
        await expectNothingLost(mock.url, KEYS, load.outcome, hook.received);
      } finally {
        mock.child.kill("SIGTERM");
        await once(mock.child, "exit");
        await hook.close();
      }
    }, 240_000);
  },
);
