// One instance of a merchant's backend, run as its own process by instances.test.ts (and the checkout
// bench): the payment-status endpoint over node:http with a shared store, and a webhook receiver that
// verifies each delivery and hands it to `notify`. Configured by environment variables; prints
// `{"port":…}` on stdout once listening; SIGTERM closes everything.
import { createServer, type IncomingMessage } from "node:http";
// By package name: with `--conditions=@paykit/source` (the tests) that is src/, without it (the bench) dist/.
import { Paykit } from "@paykit/node";
import {
  createPaymentStatus,
  memoryStatusStore,
  type PaymentStatusStore,
  toNodeListener,
} from "@paykit/node/checkout";
import { postgresStatusStore } from "@paykit/node/checkout/postgres";
import { redisStatusStore } from "@paykit/node/checkout/redis";
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { createClient } from "redis";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`instance-server: ${name} is not set`);
  return value;
};

const kind = env("PAYKIT_STATUS_STORE"); // memory | redis | ioredis | postgres
const storeUrl = kind === "memory" ? "" : env("PAYKIT_STORE_URL");
const pollIntervalMs = Number(process.env.PAYKIT_POLL_MS ?? 2_000);
const maxPollIntervalMs = Number(process.env.PAYKIT_MAX_POLL_MS ?? pollIntervalMs);
const paykit = new Paykit({
  publicKey: env("PAYKIT_PUBLIC_KEY"),
  secretKey: env("PAYKIT_SECRET_KEY"),
  webhookSecret: env("PAYKIT_WEBHOOK_SECRET"),
  baseUrl: env("PAYKIT_BASE_URL"),
});

const closers: (() => Promise<unknown>)[] = [];
let store: PaymentStatusStore;
if (kind === "memory") {
  store = memoryStatusStore();
} else if (kind === "postgres") {
  const pool = new pg.Pool({ connectionString: storeUrl, max: 5 });
  pool.on("error", () => undefined);
  const postgres = postgresStatusStore(pool);
  await postgres.ensureSchema();
  store = postgres;
  closers.push(() => pool.end());
} else if (kind === "ioredis") {
  const client = new IORedis(storeUrl);
  store = redisStatusStore(client);
  closers.push(() => client.quit());
} else {
  const client = createClient({ url: storeUrl });
  client.on("error", () => undefined);
  await client.connect();
  store = redisStatusStore(client);
  closers.push(() => client.close());
}

const status = createPaymentStatus({
  paykit,
  store,
  pollIntervalMs,
  maxPollIntervalMs,
  // The shopper's session owns the payin: here, a cookie naming it.
  authorize: (request, payinId) => (request.headers.get("cookie") ?? "").includes(`order=${payinId}`),
  onError: (error) => process.stderr.write(`instance-server: ${String(error)}\n`),
});
const statusListener = toNodeListener(status.handler);
const counts = { webhooks: 0, notified: 0 };

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Verifies a delivery and notifies; prints when `notify` was called (epoch ms, sub-ms: the bench reads it). */
async function receiveWebhook(req: IncomingMessage): Promise<number> {
  counts.webhooks++;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers[name] = value;
  }
  const event = await paykit.webhooks.parse(await readBody(req), headers);
  const notifiedAt = performance.timeOrigin + performance.now();
  await status.notify(event); // the one line every recipe adds to its webhook receiver
  counts.notified++;
  process.stdout.write(`${JSON.stringify({ notified: event.id, at: notifiedAt })}\n`);
  return notifiedAt;
}

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path === "/payment-status") return statusListener(req, res);
  if (path === "/webhooks" && req.method === "POST") {
    receiveWebhook(req).then(
      () => res.writeHead(204).end(),
      (error: unknown) => {
        process.stderr.write(`instance-server: webhook refused: ${String(error)}\n`);
        res.writeHead(400).end();
      },
    );
    return;
  }
  if (path === "/stats") {
    // The bench starts this process with --expose-gc, to measure memory after a collection.
    if (req.url?.includes("gc=1")) (globalThis as { gc?: () => void }).gc?.();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...counts, ...status.stats(), memory: process.memoryUsage() }));
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === "object" ? address?.port : 0 })}\n`);
});

process.once("SIGTERM", async () => {
  server.closeAllConnections();
  server.close();
  await status.close();
  await store.close();
  for (const close of closers) await close().catch(() => undefined);
  process.exit(0);
});
