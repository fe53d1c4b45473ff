// Four receiver processes behind one round-robin proxy share a de-duplication store (real Redis, then
// real PostgreSQL). The mock delivers 1,000 events, half of them twice (its duplicate mode) and half held
// and sent newest first (its out-of-order mode); the proxy also copies some requests to a second
// receiver at the same moment (a retry racing the first attempt), and 10 % of handler attempts fail.
// Every event's side effect must happen exactly once: none lost, none twice.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { PostgresDedupStore } from "@paykit/webhooks/postgres";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../scripts/processes.mjs";
import { startPostgres, startRedis, type TestService } from "../../scripts/services.mjs";

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

interface Receiver {
  child: ChildProcess;
  port: number;
  lines: AsyncIterableIterator<string>;
}

interface Counters {
  requests: number;
  handled: number;
  duplicate: number;
  inProgress: number;
  failures: number;
  refused: number;
}

async function startReceiver(kind: string, url: string, secret: string, seed: number): Promise<Receiver> {
  // A process group (scripts/processes.mjs), so that a receiver never outlives this test process, also
  // when the scenario times out before its `finally` (which kills them) runs. (Receivers were plain
  // children for a while, after scenarios hung with their receivers gone, which was blamed on a reused
  // pid; the cause was stopReceiver's exit listener, added after the exit it waited for.)
  const child = spawnGroup(
    process.execPath,
    [RECEIVER, kind, url, secret, String(FAILURE_RATE), String(seed)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  const port = Number(first.value);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`receiver did not start: ${String(first.value)}`);
  return { child, port, lines };
}

async function stopReceiver(receiver: Receiver): Promise<Counters> {
  // Listening for the exit before the signal: a receiver prints its counters and exits at once, and on a
  // loaded machine its exit was handled before a listener added after reading the counters, which then
  // waited for ever (the scenario hung, its receivers gone).
  const { child } = receiver;
  const exited =
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, "exit");
  child.kill("SIGTERM");
  const line = await receiver.lines.next();
  await exited.catch(() => undefined);
  return JSON.parse(String(line.value)) as Counters;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * A round-robin load balancer in front of the receivers. With probability RACE_RATE it also sends the
 * same request to the next receiver at the same moment (the answer the sender gets is the first one's).
 */
async function startProxy(ports: number[], random: () => number) {
  let next = 0;
  const racing = new Set<Promise<unknown>>();
  const stats = { forwarded: 0, raced: 0 };
  const forward = (port: number, req: IncomingMessage, body: Buffer) =>
    fetch(`http://127.0.0.1:${port}${req.url}`, {
      method: "POST",
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(
          ([name]) => name.startsWith("webhook-") || name === "content-type",
        ),
      ) as Record<string, string>,
      body: new Uint8Array(body),
    });
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const primary = ports[next % ports.length]!;
    const secondary = ports[(next + 1) % ports.length]!;
    next += 1;
    stats.forwarded += 1;
    if (random() < RACE_RATE) {
      stats.raced += 1;
      const race = forward(secondary, req, body).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
      racing.add(race);
      void race.finally(() => racing.delete(race));
    }
    try {
      const answer = await forward(primary, req, body);
      await answer.arrayBuffer();
      res.writeHead(answer.status).end();
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    stats,
    async drain() {
      while (racing.size > 0) await Promise.all([...racing]);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

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

/**
 * Runs the outbox to completion on the mock clock: every round moves the clock past the longest retry
 * delay (due retries run at once) and flushes; a delivery that spent its 8 attempts is redelivered,
 * as an operator would. Answers the number of rounds and redeliveries.
 */
/** The whole delivery log, every page of it (a control list answers one page of at most 1000). */
async function deliveryLog(mock: MockServer) {
  const log = [];
  for await (const delivery of mock.control.listAll("webhooks", { limit: 1000 })) log.push(delivery);
  return log;
}

async function deliverEverything(mock: MockServer): Promise<{ rounds: number; redelivered: number }> {
  let redelivered = 0;
  for (let round = 1; round <= 40; round += 1) {
    await mock.control.flushWebhooks();
    const log = await deliveryLog(mock);
    const failed = log.filter((d) => d.state === "failed");
    for (const d of failed) await mock.control.redeliverWebhook(d.id);
    redelivered += failed.length;
    if (log.every((d) => d.state === "delivered")) return { rounds: round, redelivered };
    await mock.control.setClock({ advanceMs: 3 * 60 * 60 * 1000 });
  }
  throw new Error("the outbox did not settle in 40 rounds");
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
  const receivers = await Promise.all(
    Array.from({ length: RECEIVERS }, (_, i) => startReceiver(kind, server.url, secret, SEED + i + 1)),
  );
  const proxy = await startProxy(
    receivers.map((r) => r.port),
    seeded(SEED),
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
    const counters = await Promise.all(receivers.map(stopReceiver));
    const total = counters.reduce(
      (sum, c) => {
        for (const key of Object.keys(sum) as (keyof Counters)[]) sum[key] += c[key];
        return sum;
      },
      { requests: 0, handled: 0, duplicate: 0, inProgress: 0, failures: 0, refused: 0 },
    );
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
