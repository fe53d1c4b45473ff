// Two instances of a merchant's backend as two real processes (instance-server.ts), sharing a real
// Redis, then a real PostgreSQL, against the real mock over HTTP. The webhook reaches instance A; the
// shopper's server-sent-events stream is on instance B (read with the `eventsource` package).
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { EventSource } from "eventsource";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../../scripts/processes.mjs";
import { startPostgres, startRedis, type TestService } from "../../../../scripts/services.mjs";
import { Paykit } from "../../src/index.js";
import { eventually } from "./status-store-contract.js";

const SCRIPT = fileURLToPath(new URL("./instance-server.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

interface Instance {
  child: ChildProcess;
  url: string;
  log: string[];
}

let mock: MockServer;
let paykit: Paykit;
const services: TestService[] = [];
const children = new Set<ChildProcess>();
const streams = new Set<EventSource>();

/** Kills an instance's whole process group at once, as a crash would. */
function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      resolve(); // gone already
    }
  });
}

interface AccountKeys {
  publicKey: string;
  secretKey: string;
  webhookSecret?: string | null;
}

async function startInstance(
  store: string,
  storeUrl: string,
  pollMs: number,
  account: AccountKeys = mock.account,
): Promise<Instance> {
  // Its own process group, so a kill takes anything it started with it; killed with this test process
  // however it ends (scripts/processes.mjs).
  const child = spawnGroup(process.execPath, ["--conditions=@paykit/source", "--import", "tsx", SCRIPT], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PAYKIT_STATUS_STORE: store,
      PAYKIT_STORE_URL: storeUrl,
      PAYKIT_POLL_MS: String(pollMs),
      PAYKIT_PUBLIC_KEY: account.publicKey,
      PAYKIT_SECRET_KEY: account.secretKey,
      PAYKIT_WEBHOOK_SECRET: account.webhookSecret ?? "",
      PAYKIT_BASE_URL: mock.url,
    },
  });
  children.add(child);
  const log: string[] = [];
  child.stderr?.on("data", (chunk) => log.push(String(chunk)));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${log.join("")}`)), 60_000);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`instance exited ${code}:\n${log.join("")}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, log };
}

/** A shopper's page watching `payinId` on `instance`: every status event it receives, in order. */
function watch(instance: Instance, payinId: string) {
  const events: { id: string; data: Record<string, unknown> }[] = [];
  const errors: unknown[] = [];
  const source = new EventSource(`${instance.url}/payment-status?id=${encodeURIComponent(payinId)}`, {
    fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, cookie: `order=${payinId}` } }),
  });
  streams.add(source);
  source.onmessage = (event) => {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    events.push({ id: event.lastEventId, data });
    // The protocol: a page closes its EventSource on a final status, or it would reconnect.
    if (["APPROVED", "REFUSED", "EXPIRED"].includes(String(data.status))) source.close();
  };
  source.onerror = (error) => errors.push(error);
  return { source, events, errors, statuses: () => events.map((event) => event.data.status) };
}

async function statsOf(instance: Instance) {
  const response = await fetch(`${instance.url}/stats`);
  return (await response.json()) as {
    webhooks: number;
    notified: number;
    openStreams: number;
    watchedPayins: number;
  };
}

beforeAll(async () => {
  services.push(...(await Promise.all([startRedis(), startPostgres()])));
  mock = await createMockServer({ autoAdvance: false });
  paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
}, 120_000);

afterEach(async () => {
  for (const source of streams) source.close();
  streams.clear();
  await Promise.all([...children].map(kill));
  children.clear();
}, 120_000);

afterAll(async () => {
  await mock?.close();
  await Promise.all(services.map((service) => service.stop()));
}, 120_000);

/** The ids the instances' shared store holds statuses under (read from Redis or PostgreSQL directly). */
async function storedIds(store: string, url: string): Promise<string[]> {
  if (store === "redis") {
    const redis = await createClient({ url }).connect();
    try {
      const keys = await redis.keys("paykit:payment-status:status:*");
      return keys.map((key) => /\{(.*)\}$/.exec(key)?.[1] ?? key);
    } finally {
      await redis.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query<{ id: string }>("SELECT id FROM paykit_payment_status WHERE status IS NOT NULL")
    ).rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

describe.each([
  ["Redis (node-redis)", "redis", () => services[0]!.url],
  ["PostgreSQL", "postgres", () => services[1]!.url],
])("two instances sharing %s", (_, store, storeUrl) => {
  it("the webhook reaches instance A, and the shopper's stream on instance B gets the final status", async () => {
    // B polls once a minute: within this test's deadlines the final status can only come through the store.
    const [a, b] = await Promise.all([
      startInstance(store, storeUrl(), 60_000),
      startInstance(store, storeUrl(), 60_000),
    ]);
    const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl: `${a.url}/webhooks` }));
    const shopper = watch(b, payin.id);
    await eventually(() => shopper.events.length === 1, "the PENDING status on B", 30_000);
    expect(shopper.events[0]?.data).toEqual({
      id: payin.id,
      status: "PENDING",
      paymentMethod: "PIX",
      updatedAt: (await paykit.payins.retrieve(payin.id)).updatedAt,
    });

    await mock.control.payPayin(payin.id);
    await eventually(() => shopper.statuses().includes("APPROVED"), "the APPROVED status on B", 30_000);
    expect(shopper.statuses()).toEqual(["PENDING", "APPROVED"]);
    const approved = shopper.events[1]!;
    expect(Object.keys(approved.data).sort()).toEqual(["id", "paymentMethod", "status", "updatedAt"]);
    expect(approved.id).toBe(`APPROVED.${approved.data.updatedAt}`);
    expect(await statsOf(a)).toMatchObject({ webhooks: 1, notified: 1 });
    expect(await statsOf(b)).toMatchObject({ webhooks: 0 });
    // B ended the stream after the final status: no stream, no poll timer left on it.
    await eventually(async () => (await statsOf(b)).openStreams === 0, "B to end the stream");
    expect(await statsOf(b)).toMatchObject({ notified: 0, watchedPayins: 0 });
  }, 120_000);

  it("instance A is killed mid-stream, and B's stream still finishes by polling", async () => {
    const [a, b] = await Promise.all([
      startInstance(store, storeUrl(), 500),
      startInstance(store, storeUrl(), 500),
    ]);
    const payin = await paykit.payins.create(samplePayin("PIX", { webhookUrl: `${a.url}/webhooks` }));
    const onA = watch(a, payin.id);
    const onB = watch(b, payin.id);
    await eventually(() => onA.events.length === 1 && onB.events.length === 1, "PENDING on both", 30_000);

    await kill(a.child); // SIGKILL: no clean-up, its stream cut, its store connections dropped
    await mock.control.payPayin(payin.id); // the webhook to A now fails
    await eventually(() => onB.statuses().includes("APPROVED"), "APPROVED on B by polling", 30_000);
    expect(onB.statuses()).toEqual(["PENDING", "APPROVED"]);
    expect(onA.statuses()).toEqual(["PENDING"]);
    // The proof it came by polling: the only delivery of this payin never reached a receiver.
    const deliveries = (await mock.control.webhooks()).filter((d) => d.resourceId === payin.id);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => d.state !== "delivered")).toBe(true);
    expect(await statsOf(b)).toMatchObject({ webhooks: 0 });
  }, 120_000);

  it("instances of two accounts: another account's payin is 404 as JSON and as a stream, pending and final", async () => {
    // Account B's own instance follows B's payin, so the shared store holds its status; account A's
    // instance is asked for it by a shopper its `authorize` lets through (the cookie names the payin).
    const other = await mock.control.createAccount({
      webhookSecret: "whsec_b3RoZXItYWNjb3VudC1vZi10aGUtc3RvcmU",
    });
    const [a, b] = await Promise.all([
      startInstance(store, storeUrl(), 60_000),
      startInstance(store, storeUrl(), 60_000, other),
    ]);
    const paykitB = new Paykit({ ...other, baseUrl: mock.url });
    const payin = await paykitB.payins.create(samplePayin("PIX", { webhookUrl: `${b.url}/webhooks` }));
    const shopper = watch(b, payin.id);
    await eventually(() => shopper.events.length === 1, "the PENDING status on B", 30_000);
    // B shared it: what A is asked about below is in the store
    await eventually(
      async () => (await storedIds(store, storeUrl())).some((id) => id.endsWith(payin.id)),
      "B's status in the shared store",
      30_000,
    );

    const askA = async (accept: string) => {
      const aborted = new AbortController();
      const response = await fetch(`${a.url}/payment-status?id=${payin.id}`, {
        headers: { accept, cookie: `order=${payin.id}` },
        signal: aborted.signal,
      });
      const stream = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
      const body = stream ? "" : await response.text();
      aborted.abort(); // a stream would stay open
      return { status: response.status, type: response.headers.get("content-type"), body };
    };
    const notFound = { status: 404, type: "application/json; charset=utf-8" };
    for (const accept of ["application/json", "text/event-stream"])
      expect(await askA(accept), `pending, ${accept}`).toMatchObject(notFound);

    await mock.control.payPayin(payin.id);
    await eventually(() => shopper.statuses().includes("APPROVED"), "the APPROVED status on B", 30_000);
    // B's notify has returned: the final status is in the shared store (its page may hear it a moment before)
    await eventually(async () => (await statsOf(b)).notified === 1, "B's notify to finish", 30_000);
    for (const accept of ["application/json", "text/event-stream"])
      expect(await askA(accept), `final, ${accept}`).toMatchObject(notFound);

    // kept under B's account, which is why A never reads it
    expect(await storedIds(store, storeUrl())).toContain(`${other.publicKey}:${payin.id}`);

    // A's own payins are A's as before, through the same store.
    const own = await paykit.payins.create(samplePayin("PIX", { webhookUrl: `${a.url}/webhooks` }));
    const ownPage = watch(a, own.id);
    await eventually(() => ownPage.events.length === 1, "A's own payin on A", 30_000);
    expect(ownPage.events[0]?.data).toMatchObject({ id: own.id, status: "PENDING" });
  }, 120_000);
});
