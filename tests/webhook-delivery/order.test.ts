// Four receiver processes behind one round-robin proxy keep each payin's and payout's order through one
// WebhookOrderGuard store (real Redis, then real PostgreSQL). The mock sends payouts along every path of
// the tables (completed, refunded, failed, refused, approved by hand, canceled) and payins (paid,
// expired), from accounts in its duplicate mode, its out-of-order mode (held, then sent newest first)
// and both; the proxy copies some requests to a second receiver at the same moment, and 10 % of handler
// runs fail. Every resource must end at the mock's final status, through handler runs that each moved
// it forward from where the previous one left it, never two at once on one resource.
// (order-races.test.ts: four processes on one payout at once, and a store that goes down.)
import { createMockServer, type MockServer, samplePayin, samplePayout } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { afterAll, describe, expect, it } from "vitest";
import { startPostgres, startRedis, type TestService } from "../../scripts/services.mjs";
import {
  type Driven,
  FAILURE_RATE,
  ORDER_RECEIVER,
  type OrderCounters,
  problemsOf,
  RECEIVERS,
  runsStore,
  SEED,
} from "./order-runs.js";
import {
  deliverEverything,
  deliveryLog,
  inBatches,
  type Receiver,
  seeded,
  startProxy,
  startReceiver,
  stopReceiver,
  sumCounters,
} from "./support.js";

const RESOURCES_PER_ACCOUNT = 30;
const RACE_RATE = 0.15;

type Control = MockServer["control"];

/**
 * The fates a resource is driven through: its statuses after creation, oldest first (the path the
 * events must be applied along), and the control calls that make them.
 */
const FATES: ReadonlyArray<{
  name: string;
  kind: "payin" | "payout";
  manual?: boolean;
  path: readonly string[];
  drive: (control: Control, id: string) => Promise<unknown>;
}> = [
  {
    name: "completed",
    kind: "payout",
    path: ["PROCESSING", "COMPLETED"],
    drive: async (c, id) => {
      await c.advancePayout(id);
      await c.advancePayout(id);
    },
  },
  {
    name: "refunded",
    kind: "payout",
    path: ["PROCESSING", "COMPLETED", "REFUNDED"],
    drive: async (c, id) => {
      await c.advancePayout(id);
      await c.advancePayout(id);
      await c.refundPayout(id);
    },
  },
  {
    name: "failed",
    kind: "payout",
    path: ["PROCESSING", "FAILED"],
    drive: async (c, id) => {
      await c.advancePayout(id);
      await c.failPayout(id, "FAILED");
    },
  },
  {
    name: "refused",
    kind: "payout",
    path: ["PROCESSING", "REFUSED"],
    drive: async (c, id) => {
      await c.advancePayout(id);
      await c.failPayout(id, "REFUSED");
    },
  },
  {
    name: "approved by hand, then refunded",
    kind: "payout",
    manual: true,
    path: ["APPROVED", "PROCESSING", "COMPLETED", "REFUNDED"],
    drive: async (c, id) => {
      await c.approvePayout(id);
      await c.advancePayout(id);
      await c.advancePayout(id);
      await c.refundPayout(id);
    },
  },
  {
    name: "rejected by hand",
    kind: "payout",
    manual: true,
    path: ["CANCELED"],
    drive: (c, id) => c.rejectPayout(id),
  },
  { name: "paid", kind: "payin", path: ["APPROVED"], drive: (c, id) => c.payPayin(id) },
  { name: "expired", kind: "payin", path: ["EXPIRED"], drive: (c, id) => c.expirePayin(id) },
];

/**
 * Creates resources of every fate on three accounts (duplicates; out of order; both, with payouts
 * approved by hand) and drives each along its path, each resource's steps back to back so that the
 * out-of-order mode holds them together and sends them newest first.
 */
async function produceEvents(mock: MockServer, secret: string, webhookUrl: string): Promise<Driven[]> {
  const accounts = [
    { webhookDuplicates: true },
    { webhookOutOfOrder: true },
    { webhookDuplicates: true, webhookOutOfOrder: true, payoutApproval: "manual" as const },
  ];
  const driven: Driven[] = [];
  for (const settings of accounts) {
    const keys = await mock.control.createAccount({
      webhookSecret: secret,
      balance: 100_000_000,
      ...settings,
    });
    const manual = settings.payoutApproval === "manual";
    const fates = FATES.filter((f) => f.kind === "payin" || (f.manual ?? false) === manual);
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${mock.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    await inBatches(
      Array.from({ length: RESOURCES_PER_ACCOUNT }, (_, i) => fates[i % fates.length]!),
      10,
      async (fate) => {
        const id =
          fate.kind === "payout"
            ? await post("/payout", samplePayout({ webhookUrl }))
            : await post("/payin", samplePayin("PIX", { webhookUrl }));
        await fate.drive(mock.control, id);
        driven.push({ resource: `${fate.kind}:${id}`, path: fate.path });
      },
    );
  }
  return driven;
}

async function runScenario(kind: "redis" | "postgres", server: TestService) {
  const started = Date.now();
  const secret = generateWebhookSecret();
  const { runsOf, close: closeStore } = await runsStore(kind, server.url);
  const receivers: Receiver[] = await Promise.all(
    Array.from({ length: RECEIVERS }, (_, i) =>
      startReceiver(ORDER_RECEIVER, [kind, server.url, secret, String(FAILURE_RATE), String(SEED + i + 1)]),
    ),
  );
  const proxy = await startProxy(
    receivers.map((r) => r.port),
    seeded(SEED),
    RACE_RATE,
  );
  const mock = await createMockServer({ autoAdvance: false });
  try {
    const driven = await produceEvents(mock, secret, proxy.url);
    const { rounds, redelivered } = await deliverEverything(mock);
    await proxy.drain();
    const log = await deliveryLog(mock);
    const runs = await runsOf();
    const total = sumCounters(await Promise.all(receivers.map((r) => stopReceiver<OrderCounters>(r))));
    const problems = driven.flatMap((d) =>
      problemsOf(
        d,
        runs.filter((r) => r.resource === d.resource),
      ).map((p) => `${d.resource} (${d.path.join(" → ")}): ${p}`),
    );
    const attempts = log.reduce((n, d) => n + d.attempts.length, 0);
    console.log(
      `webhook-delivery order [${kind}]: ${driven.length} resources, ${log.length} events, ${attempts} mock attempts ` +
        `(${proxy.stats.raced} raced copies), ${total.requests} receiver requests over ${RECEIVERS} processes: ` +
        `${total.forward} forward, ${total.repeat} repeat, ${total.stale} stale, ${total.inProgress} in-progress (409), ` +
        `${total.failures} handler failures injected; ${problems.length} problems; ${rounds} clock rounds, ` +
        `${redelivered} redelivered; seed ${SEED}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(problems).toEqual([]);
    // The final status the mock holds is the one the receivers reached: the last event of each path.
    const finals = new Map(log.map((d) => [`${d.resource}:${d.resourceId}`, d.status]));
    for (const d of driven) expect(finals.get(d.resource), d.resource).toBe(d.path.at(-1));
    expect(log.every((d) => d.state === "delivered")).toBe(true);
    // The scenario really exercised what it claims.
    expect(total.refused).toBe(0);
    expect(total.stale).toBeGreaterThan(0);
    expect(total.repeat).toBeGreaterThan(0);
    expect(total.inProgress).toBeGreaterThan(0);
    expect(total.failures).toBeGreaterThan(0);
    expect(proxy.stats.raced).toBeGreaterThan(0);
  } finally {
    await mock.close();
    await proxy.close();
    for (const r of receivers) if (r.child.exitCode === null) r.child.kill("SIGKILL");
    await closeStore();
  }
}

describe("many receiver processes, one shared order store", () => {
  const services: TestService[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });

  it("Redis: every payin and payout ends at its final status, moved only forward, one run at a time", async () => {
    const redis = await startRedis();
    services.push(redis);
    await runScenario("redis", redis);
  });

  it("PostgreSQL: the same", async () => {
    const postgres = await startPostgres();
    services.push(postgres);
    await runScenario("postgres", postgres);
  });
});
