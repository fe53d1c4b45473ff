// The Redis and PostgreSQL stores against real servers (Debian's redis-server and postgresql, started
// on loopback by scripts/services.mjs), through the same contract as the memory store.
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, startRedis, type TestService } from "../../../scripts/services.mjs";
import { PostgresDedupStore, postgresDedupSchema } from "../src/postgres.js";
import { RedisDedupStore } from "../src/redis.js";
import { dedupStoreContract, realTime } from "./dedupe-contract.js";

let redisServer: TestService;
let postgresServer: TestService;
let nodeRedis: ReturnType<typeof createClient>;
let ioredis: IORedis;
let pool: pg.Pool;
let stores: { nodeRedis: RedisDedupStore; ioredis: RedisDedupStore; postgres: PostgresDedupStore };

beforeAll(async () => {
  [redisServer, postgresServer] = await Promise.all([startRedis(), startPostgres()]);
  nodeRedis = createClient({ url: redisServer.url });
  await nodeRedis.connect();
  ioredis = new IORedis(redisServer.url);
  pool = new pg.Pool({ connectionString: postgresServer.url, max: 20 });
  // pg's documented rule: an idle client's error (the server stopping) is emitted on the pool.
  pool.on("error", () => undefined);
  const postgres = new PostgresDedupStore(pool);
  await postgres.ensureSchema();
  await postgres.ensureSchema(); // idempotent
  stores = {
    nodeRedis: new RedisDedupStore(nodeRedis),
    ioredis: new RedisDedupStore(ioredis, { keyPrefix: "io:" }),
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
// (every test uses keys of its own), so the waits overlap.
describe.concurrent("on the real servers", () => {
  dedupStoreContract("RedisDedupStore (node-redis)", () => stores.nodeRedis, realTime);
  dedupStoreContract("RedisDedupStore (ioredis)", () => stores.ioredis, realTime);
  dedupStoreContract("PostgresDedupStore (pg Pool)", () => stores.postgres, realTime);
});

describe("PostgresDedupStore", () => {
  it("purges expired rows", async () => {
    await stores.postgres.begin("purge:a", "t", 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stores.postgres.purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await pool.query(
      "SELECT count(*)::int AS n FROM paykit_webhook_dedup WHERE key = 'purge:a'",
    );
    expect(left.rows[0]?.n).toBe(0);
  });

  it("refuses a table name that is not an identifier", () => {
    expect(() => new PostgresDedupStore(pool, { table: "x; DROP TABLE y" })).toThrow(TypeError);
    expect(() => postgresDedupSchema('"quoted"')).toThrow(TypeError);
  });

  it("works in a schema-qualified table", async () => {
    await pool.query("CREATE SCHEMA IF NOT EXISTS hooks");
    const store = new PostgresDedupStore(pool, { table: "hooks.dedup" });
    await store.ensureSchema();
    expect(await store.begin("k", "a", 60_000)).toBe("started");
    expect(await store.begin("k", "b", 60_000)).toBe("in-progress");
  });
});

describe("RedisDedupStore", () => {
  it("refuses something that is not a Redis client", () => {
    expect(() => new RedisDedupStore({} as never)).toThrow(TypeError);
  });

  it("keeps the lease as one key with a PX expiry under its prefix", async () => {
    await stores.nodeRedis.begin("px", "tok", 5_000);
    const ttl = Number(await nodeRedis.sendCommand(["PTTL", "paykit:webhook-dedup:px"]));
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });
});
