// `{ awaitWebhooks: true }` (HTTP: `?awaitWebhooks=true`): a control call that moves a payin or payout
// resolves only once the webhook it caused was answered, so a test asserts on its receiver without
// polling. Without it the call resolves at once, before the delivery (the behaviour tests rely on for
// speed). The receiver here is held until the test lets it answer: no timing decides the outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockControl } from "../src/control/mock-control.js";
import { createHttpControl, MockControlError } from "../src/index.js";
import {
  apiOf,
  type Harness,
  payoutBody,
  pixPayin,
  ref,
  startHarness,
  TRANSPORTS,
  type TransportName,
} from "./fixtures.js";

const WEBHOOK_URL = "https://merchant.example/webhooks/paykit";

/** A receiver that answers 204 only when released; it records each delivery's status as it gets it. */
function heldReceiver() {
  const received: string[] = [];
  let calls = 0;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  return {
    received,
    calls: () => calls,
    hold() {
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    fetch: async (_url: string, init: RequestInit) => {
      calls += 1;
      await gate;
      received.push((JSON.parse(String(init.body)) as { status: string }).status);
      return new Response(null, { status: 204 });
    },
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(TRANSPORTS)("awaitWebhooks over %s", (transport: TransportName) => {
  let h: Harness;
  const receiver = heldReceiver();
  /** The transport's own control (direct on engine and msw, HTTP over node:http) and HTTP through the transport. */
  const controls: Array<[string, () => MockControl]> = [
    ["its control", () => h.control],
    [
      "the HTTP control client",
      () =>
        createHttpControl({
          url: h.base,
          fetch: async (input, init) => {
            const res = await h.send(String(input).slice(h.base.length), init);
            if (res === "dropped") throw new TypeError("dropped");
            return res;
          },
        }),
    ],
  ];

  beforeAll(async () => {
    h = await startHarness(transport, { autoAdvance: false, fetch: receiver.fetch });
  });
  afterAll(async () => {
    receiver.release();
    await h?.close();
  });

  async function pendingPayin(): Promise<string> {
    const res = await apiOf(h).post("/payin", pixPayin({ webhookUrl: WEBHOOK_URL }));
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it.each(controls)("payPayin through %s resolves after its webhook was answered", async (_, control) => {
    const id = await pendingPayin();
    receiver.hold();
    const before = receiver.calls();
    let settled = false;
    const paid = control()
      .payPayin(id, { awaitWebhooks: true })
      .finally(() => {
        settled = true;
      });
    await until(() => receiver.calls() > before, "the delivery to reach the receiver");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false); // the receiver has not answered yet
    const answered = receiver.received.length;
    receiver.release();
    expect((await paid).status).toBe("APPROVED");
    expect(receiver.received.slice(answered)).toEqual(["APPROVED"]);
    const [delivery] = (await control().webhooks(h.account.accountId)).filter((d) => d.resourceId === id);
    expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([204]);
  });

  it.each(controls)(
    "without it, payPayin through %s resolves before the delivery is answered",
    async (_, control) => {
      const id = await pendingPayin();
      receiver.hold();
      const answered = receiver.received.length;
      expect((await control().payPayin(id)).status).toBe("APPROVED");
      expect(receiver.received.length).toBe(answered); // held: it cannot have answered
      receiver.release();
      await control().flushWebhooks(h.account.accountId);
      expect(receiver.received.slice(answered)).toEqual(["APPROVED"]);
    },
  );

  it.each(controls)("a payout step through %s waits for its webhook too", async (_, control) => {
    const res = await apiOf(h).post(
      "/payout",
      payoutBody({ referenceId: ref("await"), webhookUrl: WEBHOOK_URL }),
    );
    expect(res.status).toBe(201);
    receiver.hold();
    let settled = false;
    const advanced = control()
      .advancePayout(res.body.id, { awaitWebhooks: true })
      .finally(() => {
        settled = true;
      });
    const answered = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    receiver.release();
    const payout = await advanced;
    expect(receiver.received.slice(answered)).toEqual([payout.status]);
  });

  it("refuses an awaitWebhooks that is not true or false, and an unknown option, before acting", async () => {
    const id = await pendingPayin();
    for (const query of ["awaitWebhooks=yes", "awaitWebhook=true"]) {
      const res = await h.send(`/_mock/payins/${id}/pay?${query}`, { method: "POST" });
      expect(res === "dropped" ? 0 : res.status, query).toBe(400);
      if (res !== "dropped") expect(await res.json()).toMatchObject({ code: "INVALID_DATA" });
    }
    await expect(h.control.payins(h.account.accountId)).resolves.toContainEqual(
      expect.objectContaining({ id, status: "PENDING" }),
    );
    await expect(h.control.payPayin("pi_nope", { awaitWebhooks: true })).rejects.toBeInstanceOf(
      MockControlError,
    );
  });
});
