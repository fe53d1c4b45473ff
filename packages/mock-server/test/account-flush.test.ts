// `flushWebhooks(accountId)` (`POST /_mock/webhooks/flush?accountId=`, issue 15, isolation for teams): a
// test run on a shared sandbox flushes its own account's held events and due retries, and waits only for
// its own attempts, never for another account's receiver.
import { beforeAll, describe, expect, it } from "vitest";
import { samplePayin } from "../src/index.js";
import { warmStore } from "./durable-harness.js";
import { basic, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

describe.each(TRANSPORTS_AND_STORES)("an account's own webhook flush, over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  it("sends only that account's held events and does not wait for another account's hanging receiver", async () => {
    const hanging: (() => void)[] = [];
    const received: string[] = [];
    const mock = await startHarness(transport, {
      autoAdvance: false,
      webhookTimeoutMs: 30_000,
      fetch: async (url, init) => {
        if (String(url).startsWith("https://b.example")) {
          // B's receiver never answers: only the mock's timeout ends the attempt.
          await new Promise<void>((resolve) => {
            hanging.push(resolve);
            init?.signal?.addEventListener("abort", () => resolve());
          });
          throw new Error("receiver timed out");
        }
        received.push(String(url));
        return new Response(null, { status: 204 });
      },
    });
    try {
      // A holds its events (out of order, released newest first) until flushed.
      const a = await mock.control.createAccount({ webhookOutOfOrder: true });
      const b = await mock.control.createAccount();
      const pay = async (keys: typeof a, webhookUrl: string) => {
        const res = (await mock.send("/payin", {
          method: "POST",
          headers: { authorization: basic(keys), "content-type": "application/json" },
          body: JSON.stringify(samplePayin("PIX", { webhookUrl })),
        })) as Response;
        const { id } = (await res.json()) as { id: string };
        await mock.control.payPayin(id);
      };
      await pay(b, "https://b.example/webhooks");
      await pay(a, "https://a.example/webhooks");

      const started = Date.now();
      const flushed = await mock.control.flushWebhooks(a.accountId);
      // Well under B's 30 s timeout, however loaded the machine.
      expect(Date.now() - started).toBeLessThan(10_000);
      // A's held event is released by the flush, or (on a loaded machine) by the hold's own 50 ms timer
      // just before it: either way the flush touched A's deliveries alone and A's receiver got it once.
      expect(flushed.every((d) => d.accountId === a.accountId)).toBe(true);
      expect(received).toEqual(["https://a.example/webhooks"]);
      // B's attempt is still hanging: its delivery is untouched by A's flush.
      const [bDelivery] = await mock.control.webhooks(b.accountId);
      expect(bDelivery?.state).toBe("pending");

      // The whole sandbox's flush waits for every attempt in flight, B's included.
      const everyone = mock.control.flushWebhooks();
      const early = await Promise.race([everyone.then(() => "settled"), delay(300).then(() => "waiting")]);
      expect(early).toBe("waiting");
      for (const resolve of hanging) resolve();
      await everyone;
    } finally {
      for (const resolve of hanging) resolve();
      await mock.close();
    }
  }, 120_000);

  it("answers 404 for an account that does not exist", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      await expect(mock.control.flushWebhooks("acct_nobody")).rejects.toMatchObject({ status: 404 });
    } finally {
      await mock.close();
    }
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
