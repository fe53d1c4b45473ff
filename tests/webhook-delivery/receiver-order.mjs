// One webhook receiver process applying events in order, as a merchant runs several behind a load
// balancer: verifies the signature, runs the handler through a WebhookOrderGuard on the shared store,
// and the handler sometimes fails. Every handler run is recorded in the store's database (the
// resource, the status, what the guard said was known before, when it started and ended, whether it
// failed), so the test can check that no resource ever moved back or had two handlers at once.
// Usage: node receiver-order.mjs <redis|postgres> <store url> <whsec secret> <failure rate> <seed>
// Prints its port on the first line; on SIGTERM prints its counters as JSON and exits.
import { createServer } from "node:http";
import { isWebhookVerificationError, verifyWebhook, WebhookOrderGuard } from "@paykit/webhooks";
import pg from "pg";
import { createClient } from "redis";

const [kind, url, secret, failureRateText, seedText] = process.argv.slice(2);
const failureRate = Number(failureRateText);
let seed = Number(seedText) >>> 0;
// mulberry32: a seeded generator, so a failing run can be replayed with its seed.
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let store;
let recordRun;
let close;
if (kind === "redis") {
  const { RedisOrderStore } = await import("@paykit/webhooks/redis");
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", () => undefined);
  await client.connect();
  store = new RedisOrderStore(client, { keyPrefix: "order-test:" });
  recordRun = (run) => client.sendCommand(["RPUSH", "order-test:runs", JSON.stringify(run)]);
  close = () => client.destroy();
} else {
  const { PostgresOrderStore } = await import("@paykit/webhooks/postgres");
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => undefined);
  store = new PostgresOrderStore(pool);
  recordRun = (run) => pool.query("INSERT INTO order_runs (run) VALUES ($1)", [JSON.stringify(run)]);
  close = () => pool.end();
}

// A lease far longer than a handler takes, so even a stalled process keeps its resource to the end.
const order = new WebhookOrderGuard({ store, leaseMs: 30_000 });
const counters = { requests: 0, forward: 0, repeat: 0, stale: 0, inProgress: 0, failures: 0, refused: 0 };

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    counters.requests += 1;
    try {
      const event = await verifyWebhook(new Uint8Array(Buffer.concat(chunks)), req.headers, secret);
      const outcome = await order.handle(event, async (e, previous) => {
        const startedAt = Date.now();
        // The handler's work takes a while, so other events of the resource arrive while it runs.
        await sleep(2 + Math.floor(random() * 30));
        const failed = random() < failureRate;
        await recordRun({
          resource: `${e.kind}:${e.id}`,
          status: e.data.status,
          previous: previous?.status ?? null,
          startedAt,
          endedAt: Date.now(),
          failed,
          pid: process.pid,
        });
        if (failed) {
          counters.failures += 1;
          throw new Error("injected handler failure");
        }
      });
      if (outcome.status === "in-progress") counters.inProgress += 1;
      else counters[outcome.status] += 1;
      res.writeHead(outcome.status === "in-progress" ? 409 : outcome.status === "forward" ? 204 : 200).end();
    } catch (error) {
      if (isWebhookVerificationError(error)) {
        counters.refused += 1;
        res.writeHead(400).end();
        return;
      }
      res.writeHead(500).end();
    }
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  Promise.resolve(close()).finally(() => {
    process.stdout.write(`${JSON.stringify(counters)}\n`);
    process.exit(0);
  });
});
