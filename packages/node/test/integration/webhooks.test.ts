import { parseWebhookRequest } from "@paykit/webhooks";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import { Paykit, WebhookOrderGuard } from "../../src/index.js";
import { startMock } from "../support/mock.js";
import { payout, pixPayin } from "../support/requests.js";

interface Delivery {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** A mock whose webhook deliveries land in `deliveries` (the engine's injectable fetch), and an account with a secret. */
async function startWithWebhooks(account: { webhookOutOfOrder?: boolean; webhookDuplicates?: boolean } = {}) {
  const deliveries: Delivery[] = [];
  const api = await startMock("http", {
    fetch: async (url, init) => {
      deliveries.push({
        url,
        body: String(init.body),
        headers: { ...(init.headers as Record<string, string>) },
      });
      return new Response(null, { status: 204 });
    },
  });
  const secret = generateWebhookSecret();
  const keys = await api.control.createAccount({ balance: 100_000, webhookSecret: secret, ...account });
  const paykit: Paykit = api.client({
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    webhookSecret: secret,
  });
  return { api, paykit, secret, deliveries };
}

describe("webhooks from the mock, verified and confirmed by the client", () => {
  it("a paid PIX: parse verifies the signature, confirm re-reads the APPROVED payin", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    expect(deliveries).toHaveLength(1);
    const delivery = deliveries[0]!;
    const event = await paykit.webhooks.parse(delivery.body, delivery.headers);
    expect(event).toMatchObject({
      kind: "payin",
      id: payin.id,
      data: { status: "APPROVED" },
      webhookId: delivery.headers["webhook-id"],
    });
    if (event.kind !== "payin") throw new Error("expected a payin event");
    await expect(paykit.webhooks.confirm(event)).resolves.toMatchObject({ id: payin.id, status: "APPROVED" });
  });

  it("a processed payout: confirm finds it by referenceId", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const created = await paykit.payouts.create(payout({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.advancePayout(created.id);
    await api.control.flushWebhooks();
    const delivery = deliveries.at(-1)!;
    const event = await paykit.webhooks.parse(
      new TextEncoder().encode(delivery.body),
      new Headers(delivery.headers),
    );
    expect(event).toMatchObject({ kind: "payout", id: created.id, data: { status: "PROCESSING" } });
    await expect(paykit.webhooks.confirm(event)).resolves.toMatchObject({
      id: created.id,
      status: "PROCESSING",
    });
  });

  it("a web-standard Request is read once and verified", async () => {
    const { api, paykit, secret, deliveries } = await startWithWebhooks();
    await using _ = api;
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.expirePayin(payin.id);
    await api.control.flushWebhooks();
    const delivery = deliveries[0]!;
    const request = new Request(delivery.url, {
      method: "POST",
      body: delivery.body,
      headers: delivery.headers,
    });
    await expect(parseWebhookRequest(request, { secret })).resolves.toMatchObject({
      kind: "payin",
      data: { status: "EXPIRED" },
    });
  });

  it("a forged or re-serialized delivery is refused", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    const { body, headers } = deliveries[0]!;
    const forged = body.replace('"APPROVED"', '"REFUSED"');
    await expect(paykit.webhooks.parse(forged, headers)).rejects.toMatchObject({
      name: "WebhookVerificationError",
      code: "SIGNATURE_MISMATCH",
    });
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    await expect(paykit.webhooks.parse(reserialized, headers)).rejects.toMatchObject({
      code: "SIGNATURE_MISMATCH",
    });
    await expect(paykit.webhooks.parse(body, {})).rejects.toMatchObject({ code: "MISSING_HEADERS" });
  });

  it.each([
    ["no webhookSecret option", {}],
    ["an unset environment variable", { webhookSecret: process.env.PAYKIT_UNSET_WEBHOOK_SECRET_FOR_TEST }],
    ["an empty secret", { webhookSecret: "" }],
    ["a whitespace secret", { webhookSecret: " \n" }],
  ])("with %s, parse refuses a forged unsigned body with SECRET_MISSING", async (_label, options) => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    const careless = api.client({ publicKey: "pk_test_other", secretKey: "sk_test_other", ...options });
    const forged = deliveries[0]!.body.replace('"APPROVED"', '"REFUSED"');
    await expect(careless.webhooks.parse(forged, { "webhook-id": "msg_x" })).rejects.toMatchObject({
      name: "WebhookVerificationError",
      code: "SECRET_MISSING",
    });
    await expect(careless.webhooks.parse(deliveries[0]!.body, deliveries[0]!.headers)).rejects.toMatchObject({
      code: "SECRET_MISSING",
    });
  });

  it("allowUnsigned (asked for by name) reads the body unverified, and confirm is then the check", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    const unverified = api.client({ publicKey: "pk_test_other", secretKey: "sk_test_other" });
    // Unsigned parsing on purpose: this test shows what confirm protects against.
    const event = await unverified.webhooks.parse(deliveries[0]!.body, {}, { allowUnsigned: true });
    expect(event.kind).toBe("payin");
    // Another account's keys cannot confirm this payin: a forged event would fail the same way.
    await expect(unverified.webhooks.confirm(event)).rejects.toMatchObject({ name: "AuthenticationError" });
  });
});

describe("paykit.webhooks.orderGuard: the mock's out-of-order and duplicate deliveries, applied in order", () => {
  it("a payout's PROCESSING sent after its COMPLETED (and each event twice) is stale; COMPLETED applied once", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks({
      webhookOutOfOrder: true,
      webhookDuplicates: true,
    });
    await using _ = api;
    const created = await paykit.payouts.create(payout({ webhookUrl: "https://merchant.test/webhooks" }));
    await api.control.advancePayout(created.id);
    await api.control.advancePayout(created.id);
    await api.control.flushWebhooks(); // releases the held events: newest first
    const order = paykit.webhooks.orderGuard();
    const applied: string[] = [];
    const outcomes: string[] = [];
    for (const delivery of deliveries) {
      const event = await paykit.webhooks.parse(delivery.body, delivery.headers);
      const outcome = await order.handle(event, (e) => applied.push(e.data.status));
      outcomes.push(`${event.data.status} ${outcome.status}`);
    }
    // newest first; each copy of a delivery goes out beside its original, in either order
    expect(outcomes.filter((o) => o.startsWith("COMPLETED"))).toEqual([
      "COMPLETED forward",
      "COMPLETED repeat",
    ]);
    expect(outcomes.filter((o) => o.startsWith("PROCESSING"))).toEqual([
      "PROCESSING stale",
      "PROCESSING stale",
    ]);
    expect(applied).toEqual(["COMPLETED"]);
    expect(await order.known("payout", created.id)).toMatchObject({ status: "COMPLETED" });
    await expect(
      paykit.webhooks.confirm(await paykit.webhooks.parse(deliveries[0]!.body, deliveries[0]!.headers)),
    ).resolves.toMatchObject({ status: "COMPLETED" });
  });

  it("takes the deduplicator's options, checked the same way", () => {
    const paykit = new Paykit({
      publicKey: "pk_test_a",
      secretKey: "sk_test_a",
      baseUrl: "http://127.0.0.1:9",
    });
    expect(paykit.webhooks.orderGuard({ leaseMs: 1_000, ttlMs: 60_000 })).toBeInstanceOf(WebhookOrderGuard);
    expect(() => paykit.webhooks.orderGuard({ leaseMs: 0 })).toThrow(/leaseMs must be a positive integer/);
  });
});

describe("the trace of the creating call reaches the webhook handler", () => {
  it("paykit.webhooks.parse exposes the delivery's traceparent, in the trace of payins.create", async () => {
    const { api, paykit, deliveries } = await startWithWebhooks();
    await using _ = api;
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }), {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    const event = await paykit.webhooks.parse(deliveries[0]!.body, deliveries[0]!.headers);
    expect(event.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });
});
