// One webhook receiver process, as a merchant runs several behind a load balancer: verifies the
// signature, de-duplicates through the shared store, and runs a handler that sometimes fails.
// Usage: node receiver.mjs <redis|postgres> <store url> <whsec secret> <failure rate> <seed>
// Prints its port on the first line; on SIGTERM prints its counters as JSON and exits.
import { createServer } from "node:http";
import { isWebhookVerificationError, verifyWebhook, WebhookDeduplicator } from "@paykit/webhooks";
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
let recordEffect;
let close;
if (kind === "redis") {
  const { RedisDedupStore } = await import("@paykit/webhooks/redis");
  const client = createClient({ url });
  await client.connect();
  store = new RedisDedupStore(client, { keyPrefix: "delivery-test:" });
  recordEffect = (webhookId) => client.sendCommand(["RPUSH", "delivery-test:effects", webhookId]);
  close = () => client.destroy();
} else {
  const { PostgresDedupStore } = await import("@paykit/webhooks/postgres");
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => undefined);
  store = new PostgresDedupStore(pool);
  recordEffect = (webhookId) =>
    pool.query("INSERT INTO effects (webhook_id, pid) VALUES ($1, $2)", [webhookId, process.pid]);
  close = () => pool.end();
}

const dedup = new WebhookDeduplicator({ store, leaseMs: 2_000 });
const counters = { requests: 0, handled: 0, duplicate: 0, inProgress: 0, failures: 0, refused: 0 };

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    counters.requests += 1;
    try {
      const event = await verifyWebhook(new Uint8Array(Buffer.concat(chunks)), req.headers, secret);
      const outcome = await dedup.handle(event, async (e) => {
        // The handler's work takes a while, so retries and duplicates arrive while it runs.
        await sleep(2 + Math.floor(random() * 30));
        if (random() < failureRate) {
          counters.failures += 1;
          throw new Error("injected handler failure");
        }
        await recordEffect(e.webhookId);
      });
      if (outcome.status === "handled") counters.handled += 1;
      if (outcome.status === "duplicate") counters.duplicate += 1;
      if (outcome.status === "in-progress") counters.inProgress += 1;
      res
        .writeHead(outcome.status === "in-progress" ? 409 : outcome.status === "duplicate" ? 200 : 204)
        .end();
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
