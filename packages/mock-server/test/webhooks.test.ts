import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WEBHOOK_RETRY_DELAYS_MS } from "@paykit/contract";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { MockEngine, WebhookFetch } from "../src/index.js";
import { startEngine, warmStore } from "./durable-harness.js";
import { basic, cardPayin, payoutBody, pixPayin, WAIT } from "./fixtures.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

function receiver(port = 0): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () =>
      resolve({ server, port: (server.address() as AddressInfo).port, received }),
    ),
  );
}

async function post(engine: MockEngine, path: string, body: unknown, keys = engine.account) {
  const res = await engine.handle(
    new Request(`http://mock.test${path}`, {
      method: "POST",
      headers: { authorization: basic(keys), "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  // biome-ignore lint/suspicious/noExplicitAny: read field by field
  return (await res.json()) as any;
}

describe.each(["memory", "pglite", "postgres"] as const)(
  "the webhook outbox, state in %s (docs/decisions/webhooks.md)",
  (kind) => {
    beforeAll(() => warmStore(kind), 120_000);
    const cleanups: Array<() => void | Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it("keeps an event while the receiver is down and delivers it, signed, once it is up", async () => {
      const probe = await receiver();
      await new Promise((r) => probe.server.close(r));
      const { engine, close } = await startEngine(kind, {
        autoAdvance: false,
        defaultAccount: { webhookSecret: SECRET },
      });
      cleanups.push(close);
      const url = `http://127.0.0.1:${probe.port}/hooks`;
      const payin = await post(engine, "/payin", pixPayin({ webhookUrl: url }));
      expect(await engine.control.webhooks()).toEqual([]); // creation sends none
      await engine.control.payPayin(payin.id);
      await vi.waitFor(
        async () => expect((await engine.control.webhooks())[0]?.attempts).toHaveLength(1),
        WAIT,
      );
      const [first] = await engine.control.webhooks();
      expect(first).toMatchObject({
        resource: "payin",
        resourceId: payin.id,
        status: "APPROVED",
        url,
        state: "pending",
      });
      expect(first?.attempts[0]).toMatchObject({ statusCode: null, error: expect.any(String) });

      await engine.control.setClock({ advanceMs: WEBHOOK_RETRY_DELAYS_MS[0]! });
      await vi.waitFor(
        async () => expect((await engine.control.webhooks())[0]?.attempts).toHaveLength(2),
        WAIT,
      );

      const up = await receiver(probe.port);
      cleanups.push(() => new Promise<void>((r) => up.server.close(() => r())));
      // flush runs only DUE retries (docs/decisions/mock-server.md): the third attempt is 30 s away on
      // the mock clock.
      expect(await engine.control.flushWebhooks()).toEqual([]);
      expect(up.received).toHaveLength(0);
      expect((await engine.control.webhooks())[0]?.attempts).toHaveLength(2);
      // A test moves the clock to the retry's time, then flushes: the retry is sent and settled.
      await engine.control.setClock({ advanceMs: WEBHOOK_RETRY_DELAYS_MS[1]! });
      await engine.control.flushWebhooks();
      expect((await engine.control.webhooks())[0]?.state).toBe("delivered");
      expect(up.received).toHaveLength(1);
      const delivery = up.received[0]!;
      expect(JSON.parse(delivery.body)).toEqual({
        id: payin.id,
        status: "APPROVED",
        paymentMethod: "PIX",
        amount: 10_000,
        referenceId: payin.referenceId,
        customer: { name: "Maria da Silva", email: "maria@example.com" },
        updatedAt: expect.any(String),
      });
      expect(delivery.headers["webhook-id"]).toBe(first?.webhookId);
      expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      const verified = new Webhook(SECRET).verify(delivery.body, delivery.headers as Record<string, string>);
      expect(verified).toMatchObject({ id: payin.id });
    });

    // docs/decisions/webhook-body-bytes.md: the bytes are not JavaScript's compact JSON, so a receiver
    // that verifies a body parsed and written again fails against the mock as it would in production.
    it("writes a delivery's body so that JSON.stringify(JSON.parse(body)) does not give its bytes back", async () => {
      const got = await receiver();
      cleanups.push(() => new Promise<void>((r) => got.server.close(() => r())));
      const { engine, close } = await startEngine(kind, {
        autoAdvance: false,
        defaultAccount: { webhookSecret: SECRET },
      });
      cleanups.push(close);
      const payin = await post(
        engine,
        "/payin",
        pixPayin({
          webhookUrl: `http://127.0.0.1:${got.port}/hooks`,
          customer: { ...pixPayin().customer, name: "João Conceição" },
        }),
      );
      await engine.control.payPayin(payin.id, { awaitWebhooks: true });
      const [delivery] = got.received;
      expect(delivery?.body).toMatch(/^\{"id": "pi_\w+", "status": "APPROVED", /);
      expect(delivery?.body).toContain('"name": "Jo\\u00e3o Concei\\u00e7\\u00e3o"');
      const headers = delivery?.headers as Record<string, string>;
      expect(new Webhook(SECRET).verify(delivery!.body, headers)).toMatchObject({ id: payin.id });
      const reserialized = JSON.stringify(JSON.parse(delivery!.body));
      expect(() => new Webhook(SECRET).verify(reserialized, headers)).toThrow();
    });

    it("retries at +5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h on the mock clock, then marks the delivery failed", async () => {
      const calls: string[] = [];
      const fetch: WebhookFetch = async (_url, init) => {
        calls.push(String((init.headers as Record<string, string>)["webhook-id"]));
        return new Response("nope", { status: 500 });
      };
      const { engine, close } = await startEngine(kind, { autoAdvance: false, fetch });
      cleanups.push(close);
      const payin = await post(engine, "/payin", pixPayin({ webhookUrl: "https://merchant.test/hook" }));
      await engine.control.payPayin(payin.id);
      for (const [i, delay] of WEBHOOK_RETRY_DELAYS_MS.entries()) {
        await vi.waitFor(
          async () => expect((await engine.control.webhooks())[0]?.attempts).toHaveLength(i + 1),
          WAIT,
        );
        // the sandbox clock also runs with real time: a second short of the delay, whatever time a busy
        // machine takes between the attempt's outcome and this call, is still before the retry
        await engine.control.setClock({ advanceMs: delay - 1_000 });
        expect((await engine.control.webhooks())[0]?.attempts).toHaveLength(i + 1);
        await engine.control.setClock({ advanceMs: 1_000 });
      }
      await vi.waitFor(async () => expect((await engine.control.webhooks())[0]?.state).toBe("failed"), WAIT);
      const [entry] = await engine.control.webhooks();
      expect(entry?.attempts).toHaveLength(8);
      const gaps = entry!.attempts
        .slice(1)
        .map((a, i) => Date.parse(a.at) - Date.parse(entry!.attempts[i]!.at));
      gaps.forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[i]!);
      });
      expect(new Set(calls).size).toBe(1); // one webhook-id across every retry
      const again = await engine.control.redeliverWebhook(entry!.id);
      expect(again.attempts).toHaveLength(9);
      expect(again.state).toBe("pending");
    });

    it.each([
      [302, "a redirect is not followed"],
      [404, "a 4xx"],
    ])("counts %i as a failure (%s)", async (status) => {
      const { engine, close } = await startEngine(kind, {
        autoAdvance: false,
        fetch: async () => new Response(null, { status, headers: { location: "/x" } }),
      });
      cleanups.push(close);
      const payin = await post(engine, "/payin", pixPayin({ webhookUrl: "https://merchant.test/hook" }));
      await engine.control.payPayin(payin.id);
      await vi.waitFor(
        async () =>
          expect((await engine.control.webhooks())[0]?.attempts).toEqual([
            expect.objectContaining({ statusCode: status }),
          ]),
        WAIT,
      );
      expect((await engine.control.webhooks())[0]?.state).toBe("pending");
    });

    it("sends the payout record without bankReceipt and with failureCode on every status change", async () => {
      const bodies: unknown[] = [];
      const { engine, close } = await startEngine(kind, {
        autoAdvance: false,
        fetch: async (_url, init) => {
          bodies.push(JSON.parse(String(init.body)));
          return new Response(null, { status: 200 });
        },
      });
      cleanups.push(close);
      const payout = await post(
        engine,
        "/payout",
        payoutBody({ pixKey: "reject@bank.test", webhookUrl: "https://merchant.test/hook" }),
      );
      await engine.control.advancePayout(payout.id);
      await engine.control.advancePayout(payout.id);
      await engine.control.flushWebhooks();
      expect(bodies.map((b) => (b as { status: string }).status)).toEqual(["PROCESSING", "FAILED"]);
      expect(bodies[1]).toMatchObject({
        id: payout.id,
        failureCode: "PROVIDER_REJECTED",
        feeAmount: 100,
        pixKey: "reject@bank.test",
      });
      expect(bodies[1]).not.toHaveProperty("bankReceipt");
      expect(await engine.control.webhooks()).toMatchObject([
        { resource: "payout", status: "PROCESSING", state: "delivered" },
        { resource: "payout", status: "FAILED", state: "delivered" },
      ]);
    });

    it("test modes: duplicates deliver each event twice with one webhook-id; out-of-order sends newest first", async () => {
      const seen: Array<{ id: string; status: string }> = [];
      // the real clock, which the test stops while it makes the out-of-order events
      let stopped: number | null = null;
      const { engine, close } = await startEngine(kind, {
        now: () => stopped ?? Date.now(),
        autoAdvance: false,
        fetch: async (_url, init) => {
          const headers = init.headers as Record<string, string>;
          seen.push({
            id: headers["webhook-id"]!,
            status: (JSON.parse(String(init.body)) as { status: string }).status,
          });
          return new Response(null, { status: 200 });
        },
      });
      cleanups.push(close);
      const dup = await engine.control.createAccount({ webhookDuplicates: true, balance: 100_000 });
      const payin = await post(
        engine,
        "/payin",
        cardPayin("4000000000003220", { webhookUrl: "https://m.test/h" }),
        dup,
      );
      await engine.control.completeThreeDS(payin.id, "AUTHENTICATED");
      await engine.control.flushWebhooks();
      expect(seen).toHaveLength(2);
      expect(seen[0]?.id).toBe(seen[1]?.id);

      seen.length = 0;
      const ooo = await engine.control.createAccount({ webhookOutOfOrder: true, balance: 100_000 });
      const payout = await post(engine, "/payout", payoutBody({ webhookUrl: "https://m.test/h" }), ooo);
      // The mode holds an account's events for 50 ms of real time, then sends them newest first. Each
      // step is a transaction of its own, and on a loaded machine the second one may commit more than
      // 50 ms after the first (the first then leaves alone, in order): with the clock stopped, both
      // are held until the flush releases them.
      stopped = Date.now();
      await engine.control.advancePayout(payout.id);
      await engine.control.advancePayout(payout.id);
      await engine.control.flushWebhooks();
      stopped = null;
      expect(seen.map((s) => s.status)).toEqual(["COMPLETED", "PROCESSING"]);
    });
  },
);
