// Four receiver processes behind one round-robin proxy keep each payin's and payout's order through one
// WebhookOrderGuard store (real Redis, then real PostgreSQL). The mock sends payouts along every path of
// the tables (completed, refunded, failed, refused, approved by hand, canceled) and payins (paid,
// expired), from accounts in its duplicate mode, its out-of-order mode (held, then sent newest first)
// and both; the proxy copies some requests to a second receiver at the same moment, and 10 % of handler
// runs fail. Every resource must end at the mock's final status, through handler runs that each moved
// it forward from where the previous one left it, never two at once on one resource.
// Then four processes on one payout at once (every event, twice, to each), and a store that goes down:
// deliveries are answered 500 (never 2xx, never handled) until it is back.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createMockServer, type MockServer, samplePayin, samplePayout } from "@paykit/mock-server";
import { PostgresOrderStore } from "@paykit/webhooks/postgres";
import { generateWebhookSecret, signWebhook } from "@paykit/webhooks/testing";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { removeDir, stopGroup } from "../../scripts/processes.mjs";
import {
  freePort,
  initPostgres,
  spawnPostgres,
  startPostgres,
  startRedis,
  type TestService,
} from "../../scripts/services.mjs";
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
const RECEIVERS = 4;
const FAILURE_RATE = 0.1;
const RACE_RATE = 0.15;
const SEED = Number(process.env.PAYKIT_DELIVERY_SEED ?? Date.now() % 1_000_000);
const RECEIVER = fileURLToPath(new URL("./receiver-order.mjs", import.meta.url));

type Counters = {
  requests: number;
  forward: number;
  repeat: number;
  stale: number;
  inProgress: number;
  failures: number;
  refused: number;
};

/** One handler run, as a receiver recorded it. */
interface Run {
  resource: string;
  status: string;
  previous: string | null;
  startedAt: number;
  endedAt: number;
  failed: boolean;
}

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

interface Driven {
  resource: string;
  path: readonly string[];
}

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

/** What is wrong with one resource's handler runs, or nothing. */
function problemsOf(driven: Driven, runs: Run[]): string[] {
  const problems: string[] = [];
  const applied = runs.filter((r) => !r.failed);
  const seen = new Set<string>();
  for (const run of applied) {
    if (seen.has(run.status)) problems.push(`${run.status} applied twice`);
    seen.add(run.status);
  }
  // Follow the chain from the first move: each run moved the resource from where the last one left it.
  let at: string | null = null;
  for (let step = 0; step < applied.length; step += 1) {
    const next = applied.filter((r) => r.previous === at);
    if (next.length !== 1) {
      problems.push(`${next.length} runs moved it from ${at ?? "nothing"}`);
      break;
    }
    const { status } = next[0] as Run;
    if (at !== null && driven.path.indexOf(status) <= driven.path.indexOf(at)) {
      problems.push(`moved back, ${at} → ${status}`);
    }
    at = status;
  }
  if (at !== driven.path.at(-1)) problems.push(`ended at ${at}, not ${driven.path.at(-1)}`);
  const byStart = [...runs].sort((a, b) => a.startedAt - b.startedAt);
  byStart.forEach((run, i) => {
    const before = byStart[i - 1];
    if (before && run.startedAt < before.endedAt) problems.push(`${run.status} ran beside ${before.status}`);
  });
  return problems;
}

async function runScenario(kind: "redis" | "postgres", server: TestService) {
  const started = Date.now();
  const secret = generateWebhookSecret();
  let runsOf: () => Promise<Run[]>;
  let closeStore: () => Promise<void>;
  if (kind === "redis") {
    // An error listener: without one, node-redis throws its socket errors as an uncaught exception.
    const client = createClient({ url: server.url }).on("error", () => undefined);
    await client.connect();
    runsOf = async () =>
      ((await client.sendCommand(["LRANGE", "order-test:runs", "0", "-1"])) as string[]).map(
        (line) => JSON.parse(line) as Run,
      );
    closeStore = async () => client.destroy();
  } else {
    const pool = new pg.Pool({ connectionString: server.url });
    pool.on("error", () => undefined);
    await pool.query("CREATE TABLE order_runs (run json NOT NULL)");
    runsOf = async () => (await pool.query("SELECT run FROM order_runs")).rows.map((r) => r.run as Run);
    closeStore = () => pool.end();
  }
  if (kind === "postgres") {
    // Every receiver creates the table at start, at once (ensureSchema takes turns under a lock).
    const pool = new pg.Pool({ connectionString: server.url });
    await Promise.all(Array.from({ length: RECEIVERS }, () => new PostgresOrderStore(pool).ensureSchema()));
    await pool.end();
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
    const driven = await produceEvents(mock, secret, proxy.url);
    const { rounds, redelivered } = await deliverEverything(mock);
    await proxy.drain();
    const log = await deliveryLog(mock);
    const runs = await runsOf();
    const total = sumCounters(await Promise.all(receivers.map((r) => stopReceiver<Counters>(r))));
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

/** A payout's webhook body in `status` at `updatedAt`, as the service sends it. */
function payoutBody(id: string, status: string, updatedAt: string): string {
  return JSON.stringify({
    id,
    externalId: null,
    status,
    amount: 5_000,
    currency: "BRL",
    pixKey: "maria.santos@example.com",
    pixKeyType: "EMAIL",
    referenceId: `ref-${id}`,
    beneficiaryName: "Maria Santos",
    beneficiaryDocument: "52998224725",
    feeAmount: 100,
    netAmount: 4_900,
    failureCode: null,
    createdAt: "2026-11-22T10:00:00.000Z",
    updatedAt,
  });
}

describe("many receiver processes on one resource at once", () => {
  const PATH = ["AWAITING_APPROVAL", "APPROVED", "PROCESSING", "COMPLETED", "REFUNDED"];
  const PAYOUTS = 5;
  const COPIES = 2;

  it.each(["redis", "postgres"] as const)(
    "%s: every event of a payout, twice, to each of four processes at once (40 requests), retried until 2xx: it ends at REFUNDED, one run at a time",
    async (kind) => {
      const server = kind === "redis" ? await startRedis() : await startPostgres();
      const secret = generateWebhookSecret();
      let runsOf: () => Promise<Run[]>;
      let closeStore: () => Promise<void>;
      if (kind === "redis") {
        const client = createClient({ url: server.url }).on("error", () => undefined);
        await client.connect();
        runsOf = async () =>
          ((await client.sendCommand(["LRANGE", "order-test:runs", "0", "-1"])) as string[]).map(
            (line) => JSON.parse(line) as Run,
          );
        closeStore = async () => client.destroy();
      } else {
        const pool = new pg.Pool({ connectionString: server.url });
        pool.on("error", () => undefined);
        await new PostgresOrderStore(pool).ensureSchema();
        await pool.query("CREATE TABLE order_runs (run json NOT NULL)");
        runsOf = async () => (await pool.query("SELECT run FROM order_runs")).rows.map((r) => r.run as Run);
        closeStore = () => pool.end();
      }
      const receivers = await Promise.all(
        Array.from({ length: RECEIVERS }, (_, i) =>
          startReceiver(RECEIVER, [kind, server.url, secret, String(FAILURE_RATE), String(SEED + i + 1)]),
        ),
      );
      try {
        const answers: number[] = [];
        const deliver = async (port: number, body: string) => {
          const headers = await signWebhook(body, { secret });
          for (;;) {
            const { status } = await fetch(`http://127.0.0.1:${port}/webhooks`, {
              method: "POST",
              body,
              headers,
            });
            answers.push(status);
            if (status >= 200 && status < 300) return;
            await new Promise((resolve) => setTimeout(resolve, 10)); // 409 in progress, 500 a failed run
          }
        };
        const ids = Array.from({ length: PAYOUTS }, (_, i) => `po_many_${kind}_${SEED}_${i}`);
        await Promise.all(
          ids.flatMap((id) =>
            PATH.flatMap((status, step) => {
              const body = payoutBody(
                id,
                status,
                new Date(Date.parse("2026-11-22T10:00:00Z") + step * 1_000).toISOString(),
              );
              return receivers.flatMap((r) => Array.from({ length: COPIES }, () => deliver(r.port, body)));
            }),
          ),
        );
        const runs = await runsOf();
        const problems = ids.flatMap((id) =>
          problemsOf(
            { resource: `payout:${id}`, path: PATH },
            runs.filter((r) => r.resource === `payout:${id}`),
          ).map((p) => `${id}: ${p}`),
        );
        expect(problems).toEqual([]);
        // they really raced: copies waited for the run in progress
        expect(answers.filter((a) => a === 409).length).toBeGreaterThan(0);
        expect(answers.filter((a) => a === 204)).toHaveLength(runs.filter((r) => !r.failed).length);
      } finally {
        await Promise.all(receivers.map((r) => stopReceiver(r).catch(() => undefined)));
        await closeStore();
        await server.stop();
      }
    },
  );
});

describe("a store that is down fails the delivery", () => {
  it("PostgreSQL stopped: every delivery is answered 500 and handled by nobody; once it is back, each is applied or found stale", async () => {
    // A cluster of its own, so that it can be stopped and started again on the same port.
    const cluster = initPostgres("paykit-pg-order-down-");
    const port = await freePort();
    let database: ChildProcess | undefined = await spawnPostgres(cluster, port, ["fsync=off"]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const pool = new pg.Pool({ connectionString: url });
    pool.on("error", () => undefined);
    await new PostgresOrderStore(pool).ensureSchema();
    await pool.query("CREATE TABLE order_runs (run json NOT NULL)");
    const secret = generateWebhookSecret();
    const receiver = await startReceiver(RECEIVER, ["postgres", url, secret, "0", String(SEED)]);
    const mock = await createMockServer({ autoAdvance: false });
    try {
      const keys = await mock.control.createAccount({ webhookSecret: secret, balance: 1_000_000 });
      const webhookUrl = `http://127.0.0.1:${receiver.port}/webhooks`;
      const response = await fetch(`${mock.url}/payout`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(samplePayout({ webhookUrl })),
      });
      const { id } = (await response.json()) as { id: string };
      const attemptsOf = async (status: string) =>
        (await deliveryLog(mock))
          .filter((d) => d.resourceId === id && d.status === status)
          .flatMap((d) => d.attempts.map((a) => a.statusCode));
      // Up: PROCESSING, then COMPLETED, each delivered and applied.
      await mock.control.advancePayout(id);
      await mock.control.flushWebhooks();
      await mock.control.advancePayout(id);
      await mock.control.flushWebhooks();
      expect([await attemptsOf("PROCESSING"), await attemptsOf("COMPLETED")]).toEqual([[204], [204]]);

      // Down: the PROCESSING again (stale now) and the REFUNDED (forward) are answered 500.
      await stopGroup(database, { signal: "SIGINT", graceMs: 10_000 });
      database = undefined;
      const processing = (await deliveryLog(mock)).find(
        (d) => d.resourceId === id && d.status === "PROCESSING",
      );
      await mock.control.redeliverWebhook(processing!.id);
      await mock.control.refundPayout(id);
      await mock.control.flushWebhooks();
      expect(await attemptsOf("PROCESSING")).toEqual([204, 500]);
      expect(await attemptsOf("REFUNDED")).toEqual([500]);

      // Back: the retries find the REFUNDED forward (applied), the PROCESSING stale (acknowledged).
      database = await spawnPostgres(cluster, port, ["fsync=off"]);
      await mock.control.redeliverWebhook(processing!.id);
      await mock.control.setClock({ advanceMs: 60_000 });
      await mock.control.flushWebhooks();
      expect(await attemptsOf("PROCESSING")).toEqual([204, 500, 200]);
      expect((await attemptsOf("REFUNDED")).at(-1)).toBe(204);
      const runs = (await pool.query("SELECT run FROM order_runs")).rows.map((r) => r.run as Run);
      expect(runs.map((r) => `${r.previous ?? "-"} → ${r.status}`)).toEqual([
        "- → PROCESSING",
        "PROCESSING → COMPLETED",
        "COMPLETED → REFUNDED",
      ]);
    } finally {
      await mock.close();
      await stopReceiver(receiver).catch(() => undefined);
      await pool.end();
      if (database) await stopGroup(database, { signal: "SIGINT", graceMs: 10_000 });
      removeDir(cluster.dir);
    }
  });
});
