// `paykit-mock listen` under chaos (issue 25's promises: at least once, never lost, one webhook-id per
// event, order per resource). A burst of 500 payins paid in parallel and 40 payouts moved through
// PROCESSING and COMPLETED, while a real `paykit-mock listen` process is killed -9 at three moments of
// the stream (picked by a seeded random source) and started again, and the laptop's receiver answers
// 500 to the first arrival of about one event in five. At the end (the account's clock moved past the
// retries, and flushed) every delivery of the log is delivered, its webhook-id reached the receiver,
// each payout's COMPLETED came after its PROCESSING was accepted, and the log holds only answers the
// receiver gave.
import { afterEach, expect, it } from "vitest";
import { createMockServer } from "../src/index.js";
import {
  cleanups,
  cliListener,
  expectInOrder,
  expectNoneLost,
  laptopReceiver,
  merchant,
  seeded,
  settle,
  sleep,
} from "./listen-attack-harness.js";

const PAYINS = 500;
const PAYOUTS = 40;
const EXPECTED = PAYINS + 2 * PAYOUTS;
const KILLS = 3;

const started = cleanups();
afterEach(() => started.run());

/** About one event in five: the same ones at every run (the webhook-id's characters, summed). */
const refusedOnce = (webhookId: string) =>
  [...webhookId].reduce((sum, char) => sum + char.charCodeAt(0), 0) % 5 === 0;

it("loses no delivery of a 500-delivery burst while the listener is killed -9 three times", async () => {
  const mock = await createMockServer({ autoAdvance: false });
  started.add(() => mock.close());
  const keys = await mock.control.createAccount({ balance: 100_000_000 });
  const receiver = await laptopReceiver((a) => ({
    status: a.nth === 1 && refusedOnce(a.webhookId) ? 500 : 200,
  }));
  started.add(receiver.close);
  const random = seeded(25);
  let listener = await cliListener(mock.url, keys, receiver.url);
  started.add(() => listener.kill());

  const shop = merchant(mock.url, keys);
  const payouts: string[] = [];
  const burst = Promise.all([
    (async () => {
      const payins = await Promise.all(Array.from({ length: PAYINS }, () => shop.payin()));
      await Promise.all(payins.map((id) => mock.control.payPayin(id)));
    })(),
    ...Array.from({ length: PAYOUTS }, async () => {
      const id = await shop.payout();
      payouts.push(id);
      await mock.control.advancePayout(id);
      await mock.control.advancePayout(id);
    }),
  ]);

  // three kills, each once the receiver got a random share of the stream (between 1/4 and 3/4 of it)
  const exits: (number | null)[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const share = (kill + 1 + (random() - 0.5) * 0.6) / (KILLS + 1);
    await expect
      .poll(() => receiver.arrivals.length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(Math.floor(share * EXPECTED));
    await sleep(random() * 100);
    await listener.kill();
    exits.push((await listener.exited).code);
    // the deliveries meanwhile wait for the dead listener; a new one takes them over
    await sleep(random() * 1_000);
    listener = await cliListener(mock.url, keys, receiver.url);
  }
  await burst;

  const log = await settle(mock.control, keys.accountId, EXPECTED);
  expect(log).toHaveLength(EXPECTED);
  expect(exits).toEqual([null, null, null]);
  expectNoneLost(log, receiver.arrivals);
  for (const id of payouts) expectInOrder(receiver.arrivals, id, ["PROCESSING", "COMPLETED"]);

  // The log shows what the laptop answered, and nothing it did not: each status of a delivery's
  // attempts is one the receiver answered that webhook-id (as often at least), and the first refusals
  // are there, followed by the 2xx of a retry.
  for (const delivery of log) {
    const answered = receiver.arrivals.filter((a) => a.webhookId === delivery.webhookId);
    for (const attempt of delivery.attempts) {
      if (attempt.statusCode === null) continue;
      const times = delivery.attempts.filter((x) => x.statusCode === attempt.statusCode).length;
      expect(
        answered.filter((a) => a.answered === attempt.statusCode).length,
        `${delivery.resourceId} ${delivery.status}: ${attempt.statusCode}`,
      ).toBeGreaterThanOrEqual(times);
    }
  }
  const retried = log.filter((d) => d.attempts[0]?.statusCode === 500 && d.attempts.length > 1);
  expect(retried.length).toBeGreaterThan(EXPECTED / 10);
  // the listener that runs now printed a line per delivery it posted
  expect(listener.lines.filter((l) => l.type === "delivery").length).toBeGreaterThan(0);
}, 120_000);
