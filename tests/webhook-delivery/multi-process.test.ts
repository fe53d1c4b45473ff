// Four receiver processes behind one round-robin proxy share a de-duplication store (real Redis, then
// real PostgreSQL). The mock delivers 1,000 events, half of them twice (its duplicate mode) and half held
// and sent newest first (its out-of-order mode); the proxy also copies some requests to a second
// receiver at the same moment (a retry racing the first attempt), and 10 % of handler attempts fail.
// Every event's side effect must happen exactly once: none lost, none twice.
import { fileURLToPath } from "node:url";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { PostgresDedupStore } from "@paykit/webhooks/postgres";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { startPostgres, startRedis, type TestService } from "../../scripts/services.mjs";
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

// What is tried is each event's races, not their number: the mock sends at most 10 deliveries at a time to
// the proxy, whatever the count, and at 1,000 events a scenario still plays each race hundreds of times
// (about 250 copies racing their original, 150 answered 409 in progress, 100 failures; asserted below).
// At 2,000 it cost 15 CPU-s more of `npm test` (33 against 18) for no new interleaving.
const EVENTS = 1_000;
const RECEIVERS = 4;
const FAILURE_RATE = 0.1;
const RACE_RATE = 0.15;
const SEED = Number(process.env.PAYKIT_DELIVERY_SEED ?? Date.now() % 1_000_000);
const RECEIVER = fileURLToPath(new URL("./receiver.mjs", import.meta.url));

type Counters = {
  requests: number;
  handled: number;
  duplicate: number;
  inProgress: number;
  failures: number;
  refused: number;
};

/** Creates EVENTS payins over two accounts (duplicate mode, out-of-order mode) and pays them all. */
async function produceEvents(mock: MockServer, secret: string, webhookUrl: string): Promise<void> {
  const accounts = [
    await mock.control.createAccount({ webhookSecret: secret, webhookDuplicates: true }),
    await mock.control.createAccount({ webhookSecret: secret, webhookOutOfOrder: true }),
  ];
  const payinIds: string[] = [];
  await inBatches(
    Array.from({ length: EVENTS }, (_, i) => i),
    50,
    async (i) => {
      const keys = accounts[i % 2]!;
      const response = await fetch(`${mock.url}/payin`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(samplePayin("PIX", { webhookUrl })),
      });
      expect(response.status).toBe(201);
      payinIds.push(((await response.json()) as { id: string }).id);
    },
  );
  await inBatches(payinIds, 50, (id) => mock.control.payPayin(id));
}

async function runScenario(kind: "redis" | "postgres", server: TestService) {
  const started = Date.now();
  const secret = generateWebhookSecret();
  let effectsOf: () => Promise<string[]>;
  let closeStore: () => Promise<void>;
  if (kind === "redis") {
    // An error listener: without one, node-redis throws its socket errors (a server stopped by the
    // suite's teardown) as an uncaught exception.
    const client = createClient({ url: server.url }).on("error", () => undefined);
    await client.connect();
    effectsOf = async () =>
      (await client.sendCommand(["LRANGE", "delivery-test:effects", "0", "-1"])) as string[];
    closeStore = async () => client.destroy();
  } else {
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on("error", () => undefined);
    await new PostgresDedupStore(pool).ensureSchema();
    await pool.query("CREATE TABLE effects (webhook_id text NOT NULL, pid int NOT NULL)");
    effectsOf = async () =>
      (await pool.query("SELECT webhook_id FROM effects")).rows.map((r) => String(r.webhook_id));
    closeStore = () => pool.end();
  }
  const receivers: Receiver[] = await Promise.all(
    Array.from({ length: RECEIVERS }, (_, i) =>
      startReceiver(RECEIVER, [kind, server.url, secret, String(FAILURE_RATE), String(SEED + i + 1)]),
    ),
  );
  const proxy = await startProxy(
    receivers.map((r) => r.port),
    seeded(SEED),
    RACE_RATE,
  );
  const mock = await createMockServer({ autoAdvance: false });
  try {
    await produceEvents(mock, secret, proxy.url);
    const { rounds, redelivered } = await deliverEverything(mock);
    await proxy.drain();
    const log = await deliveryLog(mock);
    const expected = new Set(log.map((d) => d.webhookId));
    const effects = await effectsOf();
    const perEvent = new Map<string, number>();
    for (const id of effects) perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    const lost = [...expected].filter((id) => !perEvent.has(id));
    const twice = [...perEvent].filter(([, n]) => n > 1).map(([id]) => id);
    const unknown = [...perEvent.keys()].filter((id) => !expected.has(id));
    const total = sumCounters(await Promise.all(receivers.map((r) => stopReceiver<Counters>(r))));
    const attempts = log.reduce((n, d) => n + d.attempts.length, 0);
    console.log(
      `webhook-delivery [${kind}]: ${expected.size} events, ${attempts} mock attempts ` +
        `(${proxy.stats.raced} raced copies), ${total.requests} receiver requests over ${RECEIVERS} processes: ` +
        `${total.handled} handled, ${total.duplicate} duplicates acknowledged, ${total.inProgress} in-progress (409), ` +
        `${total.failures} handler failures injected; ${effects.length} side effects, ${lost.length} lost, ` +
        `${twice.length} twice; ${rounds} clock rounds, ${redelivered} redelivered; seed ${SEED}; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(expected.size).toBe(EVENTS);
    expect({ lost: lost.length, twice: twice.length, unknown: unknown.length }).toEqual({
      lost: 0,
      twice: 0,
      unknown: 0,
    });
    expect(effects).toHaveLength(EVENTS);
    expect(total.handled).toBe(EVENTS);
    // The scenario really exercised what it claims.
    expect(total.failures).toBeGreaterThan(EVENTS * FAILURE_RATE * 0.5);
    expect(total.duplicate).toBeGreaterThan(EVENTS * 0.4);
    expect(proxy.stats.raced).toBeGreaterThan(EVENTS * RACE_RATE * 0.5);
    expect(total.inProgress).toBeGreaterThan(0);
    expect(total.refused).toBe(0);
  } finally {
    await mock.close();
    await proxy.close();
    for (const r of receivers) if (r.child.exitCode === null) r.child.kill("SIGKILL");
    await closeStore();
  }
}

describe("many receiver processes, one shared de-duplication store", () => {
  const services: TestService[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });

  it("Redis: 1,000 events with duplicates, out-of-order and failing handlers, each handled exactly once", async () => {
    const redis = await startRedis();
    services.push(redis);
    await runScenario("redis", redis);
  });

  it("PostgreSQL: the same, each event handled exactly once", async () => {
    const postgres = await startPostgres();
    services.push(postgres);
    await runScenario("postgres", postgres);
  });
});
