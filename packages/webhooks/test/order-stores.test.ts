// The Redis and PostgreSQL order stores against real servers (Debian's redis-server and postgresql,
// started on loopback by scripts/services.mjs), through the same contract as the memory store.
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, startRedis, type TestService } from "../../../scripts/services.mjs";
import { orderClaimOf, WebhookOrderGuard } from "../src/order.js";
import { PostgresOrderStore, postgresOrderSchema } from "../src/postgres.js";
import { RedisOrderStore } from "../src/redis.js";
import { realTime } from "./dedupe-contract.js";
import { orderEvent, orderStoreContract } from "./order-contract.js";

let redisServer: TestService;
let postgresServer: TestService;
let nodeRedis: ReturnType<typeof createClient>;
let ioredis: IORedis;
let pool: pg.Pool;
let stores: { nodeRedis: RedisOrderStore; ioredis: RedisOrderStore; postgres: PostgresOrderStore };

beforeAll(async () => {
  [redisServer, postgresServer] = await Promise.all([startRedis(), startPostgres()]);
  nodeRedis = createClient({ url: redisServer.url });
  await nodeRedis.connect();
  ioredis = new IORedis(redisServer.url);
  pool = new pg.Pool({ connectionString: postgresServer.url, max: 20 });
  // pg's documented rule: an idle client's error (the server stopping) is emitted on the pool.
  pool.on("error", () => undefined);
  const postgres = new PostgresOrderStore(pool);
  // every instance of a receiver may run it at boot, at once
  await Promise.all(Array.from({ length: 8 }, () => postgres.ensureSchema()));
  stores = {
    nodeRedis: new RedisOrderStore(nodeRedis),
    ioredis: new RedisOrderStore(ioredis, { keyPrefix: "io-order:" }),
    postgres,
  };
}, 120_000);

afterAll(async () => {
  await pool?.end();
  nodeRedis?.destroy();
  ioredis?.disconnect();
  await Promise.all([redisServer?.stop(), postgresServer?.stop()]);
}, 120_000);

// Leases and TTLs expire by the servers' own clocks, so these runs wait in real time: concurrently
// (every test uses resources of its own), so the waits overlap.
describe.concurrent("on the real servers", () => {
  orderStoreContract("RedisOrderStore (node-redis)", () => stores.nodeRedis, realTime);
  orderStoreContract("RedisOrderStore (ioredis)", () => stores.ioredis, realTime);
  orderStoreContract("PostgresOrderStore (pg Pool)", () => stores.postgres, realTime);
});

const claim = (status: string, ms = 0) =>
  orderClaimOf("payout", status, new Date(Date.parse("2026-11-22T10:00:00Z") + ms).toISOString());

describe("RedisOrderStore", () => {
  it("refuses something that is not a Redis client", () => {
    expect(() => new RedisOrderStore({} as never)).toThrow(TypeError);
  });

  it("keeps a resource as one hash under its prefix, with the TTL as its expiry", async () => {
    await stores.nodeRedis.commit("payout:po_ttl", claim("COMPLETED"), "", 5_000);
    const key = "paykit:webhook-order:payout:po_ttl";
    const ttl = Number(await nodeRedis.sendCommand(["PTTL", key]));
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(await nodeRedis.sendCommand(["HGET", key, "s"])).toBe("COMPLETED");
  });
});

describe("PostgresOrderStore", () => {
  it("purges expired rows", async () => {
    await stores.postgres.commit("purge:a", claim("COMPLETED"), "", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stores.postgres.purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await pool.query(
      "SELECT count(*)::int AS n FROM paykit_webhook_order WHERE key = 'purge:a'",
    );
    expect(left.rows[0]?.n).toBe(0);
  });

  it("refuses a table name that is not an identifier", () => {
    expect(() => new PostgresOrderStore(pool, { table: "x; DROP TABLE y" })).toThrow(TypeError);
    expect(() => postgresOrderSchema('"quoted"')).toThrow(TypeError);
  });

  it("works in a schema-qualified table", async () => {
    await pool.query("CREATE SCHEMA IF NOT EXISTS hooks");
    const store = new PostgresOrderStore(pool, { table: "hooks.webhook_order" });
    await store.ensureSchema();
    expect(await store.begin("k", claim("PROCESSING"), "a", 60_000)).toEqual({
      answer: "started",
      previous: null,
    });
    expect(await store.begin("k", claim("COMPLETED", 1), "b", 60_000)).toEqual({ answer: "in-progress" });
  });
});

// A store that is down fails the delivery: the guard throws before any handler runs, so the receiver
// answers 5xx and the sender retries; nothing, stale or not, is let through unchecked.
describe("a store that is down", () => {
  it.each(["node-redis", "ioredis", "pg"] as const)(
    "%s: handle rejects and runs no handler",
    async (client) => {
      const server = client === "pg" ? await startPostgres() : await startRedis();
      let store: RedisOrderStore | PostgresOrderStore;
      let close: () => Promise<unknown>;
      if (client === "node-redis") {
        // Fail commands at once while disconnected, rather than queue them until Redis is back.
        const c = createClient({ url: server.url, disableOfflineQueue: true }).on("error", () => undefined);
        await c.connect();
        store = new RedisOrderStore(c);
        close = async () => c.destroy();
      } else if (client === "ioredis") {
        const c = new IORedis(server.url, { enableOfflineQueue: false, lazyConnect: true });
        c.on("error", () => undefined);
        await c.connect();
        store = new RedisOrderStore(c);
        close = async () => c.disconnect();
      } else {
        const p = new pg.Pool({ connectionString: server.url });
        p.on("error", () => undefined);
        store = new PostgresOrderStore(p);
        await store.ensureSchema();
        close = () => p.end();
      }
      try {
        const guard = new WebhookOrderGuard({ store });
        const id = `po_down_${client}`;
        const at = Date.parse("2026-11-22T10:00:00Z");
        expect(
          await guard.handle(orderEvent("payout", id, "COMPLETED", at + 2), () => "applied"),
        ).toMatchObject({
          status: "forward",
        });
        await server.stop();
        let ran = 0;
        const handler = () => {
          ran += 1;
        };
        await expect(guard.handle(orderEvent("payout", id, "PROCESSING", at + 1), handler)).rejects.toThrow();
        await expect(guard.handle(orderEvent("payout", id, "REFUNDED", at + 3), handler)).rejects.toThrow();
        expect(ran).toBe(0);
      } finally {
        await close();
        await server.stop();
      }
    },
    120_000,
  );
});
