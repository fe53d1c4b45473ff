// `paykit-mock listen` with a laptop receiver slower than the attempt timeout: its first answer comes
// after 12 s, past the 10 s a receiver is given. The attempt is recorded as a timeout and retried under
// the same webhook-id; the late 200 changes nothing in the log; another delivery made meanwhile still
// gets through; and the log names the receiver that timed out, as for any local failure
// (docs/decisions/mock-listen.md: the local error, "…(at http://localhost:3000/webhooks)").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, type WebhookDelivery } from "../src/index.js";
import {
  type Arrival,
  cleanups,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
  settle,
  sleep,
  until,
} from "./listen-attack-harness.js";

const LATE_MS = 12_000;

const started = cleanups();
afterAll(() => started.run());

describe("a receiver that answers after 12 s", () => {
  let mock: MockServer;
  let accountId: string;
  let arrivals: Arrival[];
  let slow: string;
  let fast: string;
  /** The log once the late answer came and went. */
  let before: WebhookDelivery[];

  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false });
    started.add(() => mock.close());
    const keys = await mock.control.createAccount({});
    accountId = keys.accountId;
    let first = true;
    const receiver = await laptopReceiver(() => {
      const delayMs = first ? LATE_MS : 0;
      first = false;
      return { status: 200, delayMs };
    });
    started.add(receiver.close);
    arrivals = receiver.arrivals;
    const listener = inProcessListener({ url: mock.url, keys, forwardTo: receiver.url });
    started.add(listener.stop);
    await listener.ready;

    const shop = merchant(mock.url, keys);
    slow = await shop.payin();
    fast = await shop.payin();
    await mock.control.payPayin(slow);
    await until(() => arrivals.length === 1);
    const lateAt = Date.now() + LATE_MS;
    await mock.control.payPayin(fast);
    // past the late answer, with room for it to be (wrongly) taken in
    await sleep(lateAt - Date.now() + 1_500);
    await until(async () => (await logOf(mock.control, accountId)).every((d) => d.attempts.length > 0));
    before = await logOf(mock.control, accountId);
  }, 60_000);

  it("records the attempt as a timeout, and the late 200 changes nothing", () => {
    const late = before.find((d) => d.resourceId === slow);
    expect(late?.state).toBe("pending");
    expect(late?.attempts).toHaveLength(1);
    expect(late?.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/10000 ms/) });
  });

  it("still brings the delivery made meanwhile, at its first attempt", () => {
    const other = before.find((d) => d.resourceId === fast);
    expect(other?.state).toBe("delivered");
    expect(other?.attempts.map((a) => a.statusCode)).toEqual([200]);
  });

  it("names the receiver that timed out in the log", () => {
    const late = before.find((d) => d.resourceId === slow);
    expect(late?.attempts[0]?.error).toContain("(at http://127.0.0.1:");
  });

  it("retries it under the same webhook-id, and then it is delivered", async () => {
    const log = await settle(mock.control, accountId, 2);
    const late = log.find((d) => d.resourceId === slow);
    expect(late?.attempts.map((a) => a.statusCode)).toEqual([null, 200]);
    const got = arrivals.filter((a) => a.id === slow);
    expect(got.map((a) => a.webhookId)).toEqual([late?.webhookId, late?.webhookId]);
  });
});
