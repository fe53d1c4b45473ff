// `paykit-mock listen` and a burst of deliveries to a receiver that is slow but well within the attempt
// timeout: ten payins paid at once, and a receiver that answers each in 300 ms, on a sandbox whose
// receivers get 2 s (`webhookTimeoutMs`; the same as ten answers of 1.2 s each against the default
// 10 s). Each answer comes inside the timeout, so each attempt must be recorded as that answer, a 200
// at the first attempt (docs/decisions/mock-listen.md: "the sandbox's attempt is the laptop's
// answer"), however the sandbox hands the burst out.
import { afterEach, expect, it } from "vitest";
import { createMockServer } from "../src/index.js";
import {
  cleanups,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
  until,
} from "./listen-attack-harness.js";

const BURST = 10;
const TIMEOUT_MS = 2_000;
const ANSWER_MS = 300;

const started = cleanups();
afterEach(() => started.run());

it("records the receiver's 200 for every delivery of a burst it answers within the timeout", async () => {
  const mock = await createMockServer({ autoAdvance: false, webhookTimeoutMs: TIMEOUT_MS });
  started.add(() => mock.close());
  const keys = await mock.control.createAccount({});
  const receiver = await laptopReceiver(() => ({ status: 200, delayMs: ANSWER_MS }));
  started.add(receiver.close);
  const listener = inProcessListener({ url: mock.url, keys, forwardTo: receiver.url });
  started.add(listener.stop);
  await listener.ready;

  const shop = merchant(mock.url, keys);
  const payins = await Promise.all(Array.from({ length: BURST }, () => shop.payin()));
  await Promise.all(payins.map((id) => mock.control.payPayin(id, { awaitWebhooks: true })));

  const log = await logOf(mock.control, keys.accountId);
  expect(log.map((d) => [d.resourceId, d.attempts.map((a) => a.statusCode ?? a.error)])).toEqual(
    payins.map((id) => [id, [200]]),
  );
  await until(() => receiver.arrivals.length >= BURST);
  expect(receiver.arrivals).toHaveLength(BURST);
}, 60_000);
