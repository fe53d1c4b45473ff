// The smoke test every recipe passes, end to end: the mock sends a real signed delivery to the
// recipe's URL (204: verified and handled), a redelivery of the same webhook-id is a repeat (200),
// a copy that arrives at a second instance while the first instance still runs it is in progress (409:
// never acknowledged), a payout's PROCESSING that arrives after its COMPLETED is stale (200, never
// handled), and a delivery signed with another secret is refused (400). Every instance keeps the order
// through one real Redis (Debian's redis-server, started on loopback by scripts/services.mjs).
import { createMockServer, type MockServer, samplePayin, samplePayout } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import {
  createPaymentStatus,
  memoryStatusStore,
  type PaymentStatusEndpoint,
  type PaymentStatusStore,
} from "@paykit/node/checkout";
import { generateWebhookSecret, signWebhook } from "@paykit/webhooks/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedis, type TestService } from "../../../scripts/services.mjs";
import { redisOrderStore } from "../src/order-store.js";
import { type RunningRecipe, type SharedConfig, waitFor } from "./recipes.js";
import { startRedisRest } from "./redis-rest.js";

export type { SharedConfig } from "./recipes.js";
export { waitFor } from "./recipes.js";

/** Options of {@link smokeTest}. */
export interface SmokeTestOptions {
  /**
   * Whether the recipe runs in this process, with the config's `paymentStatus` (the others run in
   * their own runtime, configured from PAYKIT_* variables alone): then its `notify` line is tested too.
   */
  inProcess?: boolean;
}

/**
 * Registers the smoke test of one recipe; `start` runs one instance with the config and answers its
 * URL. Two instances are started, sharing one Redis.
 */
export function smokeTest(
  start: (config: SharedConfig) => Promise<RunningRecipe>,
  options: SmokeTestOptions = {},
): void {
  let mock: MockServer;
  let redis: TestService;
  let shared: ReturnType<typeof redisOrderStore>;
  let rest: Awaited<ReturnType<typeof startRedisRest>>;
  let recipe: RunningRecipe;
  let second: RunningRecipe;
  let paykit: Paykit;
  let accountId: string;
  let statusStore: PaymentStatusStore;
  let publicKey: string;
  let paymentStatus: PaymentStatusEndpoint;
  const secret = generateWebhookSecret();

  beforeAll(async () => {
    redis = await startRedis();
    shared = redisOrderStore(redis.url);
    rest = await startRedisRest(redis.url);
    mock = await createMockServer({ autoAdvance: false });
    // a balance for the payout of the order test
    const keys = await mock.control.createAccount({ webhookSecret: secret, balance: 1_000_000 });
    accountId = keys.accountId;
    publicKey = keys.publicKey;
    const config: SharedConfig = {
      publicKey: keys.publicKey,
      secretKey: keys.secretKey,
      baseUrl: mock.url,
      webhookSecret: secret,
      store: shared.store,
      redisUrl: redis.url,
      redisRestUrl: rest.url,
      redisRestToken: rest.token,
    };
    statusStore = memoryStatusStore();
    // No page follows a payin in these tests: only the receiver's notify reaches the endpoint.
    paymentStatus = createPaymentStatus({
      paykit: new Paykit({ ...config }),
      authorize: () => false,
      store: statusStore,
    });
    config.paymentStatus = paymentStatus;
    recipe = await start(config);
    second = await start(config);
    paykit = new Paykit({ ...config });
  }, 120_000);

  afterAll(async () => {
    await recipe?.stop();
    await second?.stop();
    await mock?.close();
    await paymentStatus?.close();
    await statusStore?.close();
    await shared?.close();
    await rest?.stop();
    await redis?.stop();
  });

  it("verifies a signed delivery from the mock (204), answers its redelivery as a repeat (200) and refuses a forged one (400)", async () => {
    const webhookUrl = `${recipe.url}/webhooks/paykit`;
    const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl }));
    await mock.control.payPayin(payin.id);
    const delivered = await waitFor(async () => {
      const entry = (await mock.control.webhooks(accountId)).find((d) => d.resourceId === payin.id);
      return entry?.state === "pending" && entry.attempts.length === 0 ? undefined : entry;
    }, "the first delivery");
    expect(delivered.attempts.map((a) => a.statusCode)).toEqual([204]);
    expect(delivered.state).toBe("delivered");

    await mock.control.redeliverWebhook(delivered.id);
    const again = await waitFor(async () => {
      const entry = (await mock.control.webhooks(accountId)).find((d) => d.id === delivered.id);
      return entry && entry.attempts.length >= 2 ? entry : undefined;
    }, "the redelivery");
    expect(again.attempts.map((a) => a.statusCode)).toEqual([204, 200]);

    const body = JSON.stringify({ ...(await paykit.payins.retrieve(payin.id)), pix: undefined });
    const forged = await signWebhook(body, { secret: generateWebhookSecret() });
    const refused = await fetch(webhookUrl, { method: "POST", body, headers: forged });
    expect(refused.status).toBe(400);
  });

  it.runIf(options.inProcess)(
    "hands each verified event to the payment-status endpoint's notify (the shoppers' pages)",
    async () => {
      const webhookUrl = `${recipe.url}/webhooks/paykit`;
      const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl }));
      await mock.control.payPayin(payin.id);
      const delivered = await waitFor(async () => {
        const entry = (await mock.control.webhooks(accountId)).find((d) => d.resourceId === payin.id);
        return entry?.state === "delivered" ? entry : undefined;
      }, "the delivery");
      expect(delivered.attempts.map((a) => a.statusCode)).toEqual([204]);
      // Nobody asked the endpoint about this payin: the status in its store came from notify (kept
      // under the account's part of the store, `<publicKey>:<payin id>`).
      expect(await statusStore.latest(`${publicKey}:${payin.id}`)).toMatchObject({
        id: `${publicKey}:${payin.id}`,
        status: "APPROVED",
      });
    },
  );

  it("answers 500 when its own handling fails (the id is released), and 204 to Paykit's next attempt", async () => {
    const webhookUrl = `${recipe.url}/webhooks/paykit`;
    const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl }));
    // the handler confirms through the API: make that read fail through the client's own retries
    await mock.control.addFault({
      method: "GET",
      path: `/payin/${payin.id}`,
      status: 503,
      code: "INTERNAL_ERROR",
      times: 3,
    });
    await mock.control.payPayin(payin.id);
    const failed = await waitFor(async () => {
      const entry = (await mock.control.webhooks(accountId)).find((d) => d.resourceId === payin.id);
      return entry && entry.attempts.length >= 1 ? entry : undefined;
    }, "the first attempt");
    expect(failed.attempts.map((a) => a.statusCode)).toEqual([500]);
    await mock.control.redeliverWebhook(failed.id);
    const retried = await waitFor(async () => {
      const entry = (await mock.control.webhooks(accountId)).find((d) => d.id === failed.id);
      return entry && entry.attempts.length >= 2 ? entry : undefined;
    }, "the next attempt");
    expect(retried.attempts.map((a) => a.statusCode)).toEqual([500, 204]);
  });

  it("a second instance answers 409 to a copy the first is still handling, then 200 once it is done", async () => {
    const webhookUrl = `${recipe.url}/webhooks/paykit`;
    const secondUrl = `${second.url}/webhooks/paykit`;
    const payin = await paykit.payins.create(samplePayin("PIX"));
    await mock.control.payPayin(payin.id);
    const record = await paykit.payins.retrieve(payin.id);
    const body = JSON.stringify({
      id: record.id,
      status: record.status,
      paymentMethod: record.paymentMethod,
      amount: record.amount,
      referenceId: record.referenceId,
      customer: { name: record.customer.name, email: record.customer.email },
      updatedAt: record.updatedAt,
    });
    const headers = await signWebhook(body, { secret, webhookId: `msg_${payin.id}` });
    // the handler confirms through the API: slow that read down so the first attempt holds the lease
    await mock.control.addFault({ method: "GET", path: `/payin/${payin.id}`, latencyMs: 1_500 });
    const post = (url: string) => fetch(url, { method: "POST", body, headers }).then((r) => r.status);
    const first = post(webhookUrl);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await post(secondUrl)).toBe(409); // the lease is in Redis, not in the first instance
    expect(await first).toBe(204);
    expect(await post(secondUrl)).toBe(200);
    expect(await post(webhookUrl)).toBe(200);
  });

  it("applies a payout's events in order, on either instance: a PROCESSING after its COMPLETED is stale (200)", async () => {
    // no webhookUrl: the mock sends nothing, the test signs each event itself
    const { bankReceipt: _receipt, ...record } = await paykit.payouts.create(samplePayout());
    const at = Date.parse(record.updatedAt);
    const send = async (url: string, status: string, ms: number) => {
      const body = JSON.stringify({
        ...record,
        status,
        failureCode: null,
        updatedAt: new Date(at + ms).toISOString(),
      });
      const headers = await signWebhook(body, { secret });
      return (await fetch(`${url}/webhooks/paykit`, { method: "POST", body, headers })).status;
    };
    expect(await send(recipe.url, "COMPLETED", 2_000)).toBe(204);
    // the other instance knows it through the shared store: late, and a copy under a new webhook-id
    expect(await send(second.url, "PROCESSING", 1_000)).toBe(200);
    expect(await send(second.url, "COMPLETED", 2_000)).toBe(200);
    expect(await send(second.url, "REFUNDED", 3_000)).toBe(204);
    expect(await send(recipe.url, "COMPLETED", 2_000)).toBe(200);
  });
}
