// A rotated webhook secret signs like a real sender (Standard Webhooks): every later delivery, retries
// of earlier events included, carries the new secret's signature, and during the grace period the old
// one's too. Checked with the reference implementation (standardwebhooks) and with @paykit/webhooks.
import { verifyWebhook } from "@paykit/webhooks";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEngine, createMockServer, type MockEngine } from "../src/index.js";
import { basic, pixPayin, WAIT } from "./fixtures.js";

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

function capturingEngine(answer: () => number) {
  const deliveries: Delivery[] = [];
  const engine = createEngine({
    autoAdvance: false,
    fetch: async (_url, init) => {
      deliveries.push({ body: String(init.body), headers: { ...(init.headers as Record<string, string>) } });
      return new Response(null, { status: answer() });
    },
  });
  return { engine, deliveries };
}

async function createPayin(engine: MockEngine): Promise<string> {
  const res = await engine.handle(
    new Request("http://mock.test/payin", {
      method: "POST",
      headers: { authorization: basic(engine.account), "content-type": "application/json" },
      body: JSON.stringify(pixPayin({ webhookUrl: "http://receiver.test/hooks" })),
    }),
  );
  return ((await res.json()) as { id: string }).id;
}

const verifies = (secret: string, d: Delivery) => {
  try {
    new Webhook(secret).verify(d.body, d.headers);
    return true;
  } catch {
    return false;
  }
};

describe("webhook secrets of the mock", () => {
  const engines: MockEngine[] = [];
  afterEach(() => {
    for (const engine of engines.splice(0)) engine.close();
  });

  it("the default account has a secret from the start, kept across resets, and signs with it", async () => {
    const { engine, deliveries } = capturingEngine(() => 204);
    engines.push(engine);
    const secret = engine.account.webhookSecret;
    expect(secret).toMatch(/^whsec_/);
    await engine.control.payPayin(await createPayin(engine));
    await engine.control.flushWebhooks();
    expect(verifies(secret!, deliveries[0]!)).toBe(true);
    await engine.control.reset();
    expect(engine.account.webhookSecret).toBe(secret);
  });

  it("a rotation signs retries of earlier events with the new secret, and with both during the grace", async () => {
    let status = 500;
    const { engine, deliveries } = capturingEngine(() => status);
    engines.push(engine);
    const accountId = engine.account.accountId;
    const oldSecret = engine.account.webhookSecret!;
    await engine.control.payPayin(await createPayin(engine));
    await vi.waitFor(() => expect(deliveries).toHaveLength(1), WAIT);
    expect(deliveries[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);

    const rotated = await engine.control.rotateWebhookSecret(accountId);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(oldSecret);
    const { now } = await engine.control.clock();
    // 24 h of mock time (which moves with real time: a few ms may pass between the two reads).
    const grace = Date.parse(rotated.previousSecretExpiresAt!) - Date.parse(now);
    expect(Math.abs(grace - 24 * 60 * 60 * 1000)).toBeLessThan(1_000);

    // The earlier event's retry (due 5 s later on the mock clock), after the rotation: two v1
    // signatures, and each secret verifies.
    await engine.control.setClock({ advanceMs: 5_000 });
    await vi.waitFor(() => expect(deliveries).toHaveLength(2), WAIT);
    const retry = deliveries[1]!;
    expect(retry.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verifies(rotated.webhookSecret, retry)).toBe(true);
    expect(verifies(oldSecret, retry)).toBe(true);
    await expect(verifyWebhook(retry.body, retry.headers, rotated.webhookSecret)).resolves.toMatchObject({
      kind: "payin",
    });

    // After the grace period only the new secret signs.
    status = 204;
    await engine.control.setClock({ advanceMs: 24 * 60 * 60 * 1000 });
    await vi.waitFor(() => expect(deliveries).toHaveLength(3), WAIT);
    const late = deliveries[2]!;
    expect(late.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(rotated.webhookSecret, late)).toBe(true);
    expect(verifies(oldSecret, late)).toBe(false);
  });

  it("a zero grace period switches at once; a bad body or an unknown account is refused", async () => {
    const { engine } = capturingEngine(() => 204);
    engines.push(engine);
    const accountId = engine.account.accountId;
    await expect(engine.control.rotateWebhookSecret(accountId, { gracePeriodMs: 0 })).resolves.toMatchObject({
      previousSecretExpiresAt: null,
    });
    await expect(engine.control.rotateWebhookSecret(accountId, { gracePeriodMs: -1 })).rejects.toMatchObject({
      code: "INVALID_DATA",
    });
    await expect(engine.control.rotateWebhookSecret("acct_missing")).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("rotates over HTTP with the typed control client, and the answer is the new secret", async () => {
    await using mock = await createMockServer({ autoAdvance: false });
    const rotated = await mock.control.rotateWebhookSecret(mock.account.accountId);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    const raw = await fetch(`${mock.url}/_mock/accounts/${mock.account.accountId}/webhook-secret`, {
      method: "POST",
    });
    expect(raw.status).toBe(200);
    const body = (await raw.json()) as { webhookSecret: string };
    expect(body.webhookSecret).not.toBe(rotated.webhookSecret);
  });
});
