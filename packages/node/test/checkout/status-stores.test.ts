// The payment-status stores against real servers (Debian's redis-server and PostgreSQL, started on
// loopback by scripts/services.mjs), through the same contract as the in-process store.
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, startRedis, type TestService } from "../../../../scripts/services.mjs";
import { memoryStatusStore } from "../../src/checkout/memory-store.js";
import { postgresStatusSchema, postgresStatusStore } from "../../src/checkout/postgres.js";
import { redisStatusStore } from "../../src/checkout/redis.js";
import type { PaymentStatusStore } from "../../src/checkout/store.js";
import { eventually, freshId, record, statusOf, statusStoreContract } from "./status-store-contract.js";

let redisServer: TestService;
let postgresServer: TestService;
const nodeRedisClient = (url: string) => createClient({ url });
const nodeRedis: ReturnType<typeof nodeRedisClient>[] = [];
const ioredis: IORedis[] = [];
const pools: pg.Pool[] = [];
let admin: pg.Pool;

beforeAll(async () => {
  [redisServer, postgresServer] = await Promise.all([startRedis(), startPostgres()]);
  for (let i = 0; i < 2; i++) {
    const client = nodeRedisClient(redisServer.url);
    client.on("error", () => undefined); // the reconnect test kills connections on purpose
    await client.connect();
    nodeRedis.push(client);
    ioredis.push(new IORedis(redisServer.url));
    const pool = new pg.Pool({ connectionString: postgresServer.url, max: 10 });
    pool.on("error", () => undefined); // pg's rule: an idle client's error is emitted on the pool
    pools.push(pool);
  }
  admin = new pg.Pool({ connectionString: postgresServer.url, max: 2 });
  // pool.end() resolves before its connections have closed; PostgreSQL stopping meanwhile reports
  // 57P01 on them, and a pool without an error listener would throw it as an uncaught exception.
  admin.on("error", () => undefined);
  await postgresStatusStore(admin).ensureSchema();
}, 120_000);

afterAll(async () => {
  await Promise.all([...pools, admin].map((pool) => pool?.end()));
  for (const client of nodeRedis) client.destroy();
  for (const client of ioredis) client.disconnect();
  await Promise.all([redisServer?.stop(), postgresServer?.stop()]);
}, 120_000);

const pubsubConnections = async () =>
  String(await nodeRedis[0]!.sendCommand(["CLIENT", "LIST", "TYPE", "pubsub"]))
    .split("\n")
    .filter((line) => line.trim() !== "").length;
const listenConnections = async (channel = "paykit_payment_status") => {
  const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1", [
    `LISTEN "${channel}"`,
  ]);
  return rows[0].n as number;
};

// The in-process store serves one instance: its "two instances" are one store.
statusStoreContract("memoryStatusStore", {
  async open(options) {
    const store = memoryStatusStore(options);
    return { a: store, b: store };
  },
});
statusStoreContract("redisStatusStore (node-redis)", {
  async open(options) {
    return { a: redisStatusStore(nodeRedis[0]!, options), b: redisStatusStore(nodeRedis[1]!, options) };
  },
  subscriberConnections: pubsubConnections,
});
statusStoreContract("redisStatusStore (ioredis)", {
  async open(options) {
    const keys = { ...options, keyPrefix: "io:" };
    return { a: redisStatusStore(ioredis[0]!, keys), b: redisStatusStore(ioredis[1]!, keys) };
  },
  subscriberConnections: pubsubConnections,
});
statusStoreContract("postgresStatusStore (pg Pool)", {
  async open(options) {
    return { a: postgresStatusStore(pools[0]!, options), b: postgresStatusStore(pools[1]!, options) };
  },
  subscriberConnections: () => listenConnections(),
});

const closing: PaymentStatusStore[] = [];
const track = <S extends PaymentStatusStore>(store: S): S => {
  closing.push(store);
  return store;
};
afterEach(async () => {
  for (const store of closing.splice(0)) await store.close();
});

describe("redisStatusStore", () => {
  it("refuses something that is not a Redis client, and a prefix that would break the hash tag", () => {
    expect(() => redisStatusStore({} as never)).toThrow(TypeError);
    expect(() => redisStatusStore(nodeRedis[0]!, { keyPrefix: "{x}:" })).toThrow(/keyPrefix/);
    expect(() => redisStatusStore(nodeRedis[0]!, { ttlMs: 0 })).toThrow(/ttlMs/);
  });

  it("keeps a status under its prefix with the TTL as PX, and the poll window as its own key", async () => {
    const store = track(redisStatusStore(nodeRedis[0]!, { keyPrefix: "ttl:", ttlMs: 90_000 }));
    const id = freshId();
    await store.publish(statusOf(id, "PENDING"), { fresh: true, pollIntervalMs: 5_000 });
    const statusTtl = Number(await nodeRedis[0]!.sendCommand(["PTTL", `ttl:status:{${id}}`]));
    const windowTtl = Number(await nodeRedis[0]!.sendCommand(["PTTL", `ttl:poll:{${id}}`]));
    expect(statusTtl).toBeGreaterThan(60_000);
    expect(statusTtl).toBeLessThanOrEqual(90_000);
    expect(windowTtl).toBeGreaterThan(0);
    expect(windowTtl).toBeLessThanOrEqual(5_000);
  });

  it("with a subscriber connection given, close() unsubscribes it and leaves it open", async () => {
    const subscriber = createClient({ url: redisServer.url });
    await subscriber.connect();
    try {
      const store = redisStatusStore(nodeRedis[0]!, { subscriber });
      const seen = await record(store);
      const id = freshId();
      await redisStatusStore(nodeRedis[1]!).publish(statusOf(id, "PENDING"));
      await eventually(() => seen.of(id).length === 1, "the status on the given subscriber");
      await store.close();
      expect(subscriber.isOpen).toBe(true);
      expect(await subscriber.sendCommand(["PING"])).toBe("PONG"); // out of subscriber mode
    } finally {
      subscriber.destroy();
    }
  });

  it("ignores a message on its channel that is not a status", async () => {
    const store = track(redisStatusStore(ioredis[0]!));
    const seen = await record(store);
    await ioredis[1]!.publish("paykit:payment-status:updates", "not json");
    await ioredis[1]!.publish("paykit:payment-status:updates", JSON.stringify({ id: "pi_x" }));
    const id = freshId();
    await store.publish(statusOf(id, "PENDING"));
    await eventually(() => seen.of(id).length === 1, "the status after the noise");
    expect(seen.seen).toEqual([statusOf(id, "PENDING")]);
  });

  it.each([
    ["node-redis", () => nodeRedis],
    ["ioredis", () => ioredis],
  ] as const)(
    "%s: the subscriber reconnects and resubscribes after its connection is killed",
    async (_, clients) => {
      const store = track(redisStatusStore(clients()[0]!));
      const seen = await record(store);
      const killed = await nodeRedis[0]!.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"]);
      expect(Number(killed)).toBeGreaterThanOrEqual(1);
      const publisher = redisStatusStore(nodeRedis[1]!);
      // Updates published while it is down are lost (polling covers them); keep publishing until one lands.
      const id = freshId();
      let second = 0;
      await eventually(
        async () => {
          await publisher.publish(statusOf(id, "PENDING", second++));
          return seen.of(id).length > 0;
        },
        "a status after the reconnect",
        60_000,
      );
    },
    120_000,
  );
});

describe("postgresStatusStore", () => {
  it("refuses a table or channel name that is not an identifier, and a pool that is not one", () => {
    expect(() => postgresStatusStore(pools[0]!, { table: "x; DROP TABLE y" })).toThrow(TypeError);
    expect(() => postgresStatusStore(pools[0]!, { channel: 'a"b' })).toThrow(/channel/);
    expect(() => postgresStatusSchema('"quoted"')).toThrow(TypeError);
    expect(() => postgresStatusStore({ query: async () => ({ rows: [] }) } as never)).toThrow(/pg Pool/);
  });

  it("works in a schema-qualified table on its own channel, and ensureSchema is idempotent", async () => {
    await admin.query("CREATE SCHEMA IF NOT EXISTS shop");
    const options = { table: "shop.payment_status", channel: "shop_status" };
    const a = track(postgresStatusStore(pools[0]!, options));
    const b = track(postgresStatusStore(pools[1]!, options));
    await a.ensureSchema();
    await b.ensureSchema();
    const seen = await record(b);
    expect(await listenConnections("shop_status")).toBe(1);
    const id = freshId();
    await a.publish(statusOf(id, "APPROVED"));
    await eventually(() => seen.of(id).length === 1, "the status on the custom channel");
    const { rows } = await admin.query("SELECT final FROM shop.payment_status WHERE id = $1", [id]);
    expect(rows).toEqual([{ final: true }]);
  });

  it("ensureSchema run by a whole fleet at once (every instance at boot) succeeds everywhere, creating one table", async () => {
    for (let round = 0; round < 5; round++) {
      const table = `boot_${process.pid}_${round}`;
      const stores = Array.from({ length: 8 }, (_, i) => postgresStatusStore(pools[i % 2]!, { table }));
      const outcomes = await Promise.allSettled(stores.map((store) => store.ensureSchema()));
      expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
      const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = $1", [
        table,
      ]);
      expect(rows).toEqual([{ n: 1 }]);
    }
  });

  it("delivers a status too large for NOTIFY by reading it from the table", async () => {
    const a = track(postgresStatusStore(pools[0]!));
    const seen = await record(track(postgresStatusStore(pools[1]!)));
    const id = freshId();
    const large = { ...statusOf(id, "PENDING"), referenceId: "r".repeat(9_000) };
    await a.publish(large);
    await eventually(() => seen.of(id).length === 1, "the large status");
    expect(seen.of(id)[0]).toEqual(large);
  });

  it("after its LISTEN connection is killed, reconnects and re-delivers what was written meanwhile", async () => {
    const errors: unknown[] = [];
    const channel = `reconnect_${process.pid}`;
    const listener = track(
      postgresStatusStore(pools[0]!, { channel, onError: (error) => errors.push(error) }),
    );
    const publisher = track(postgresStatusStore(pools[1]!, { channel }));
    const seen = await record(listener);
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE query = $1",
      [`LISTEN "${channel}"`],
    );
    expect(rows).toEqual([{ killed: true }]);
    const missed = freshId();
    await publisher.publish(statusOf(missed, "APPROVED")); // while no connection listens
    await eventually(() => seen.of(missed).length >= 1, "the status written during the outage", 30_000);
    await eventually(async () => (await listenConnections(channel)) === 1, "the LISTEN again");
    const after = freshId();
    await publisher.publish(statusOf(after, "PENDING"));
    await eventually(() => seen.of(after).length === 1, "a status after the reconnect");
    expect(errors.length).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("purges rows whose status and poll window have both expired, by itself and on demand", async () => {
    const rowsOf = async (ids: string[]) =>
      (await admin.query("SELECT id FROM paykit_payment_status WHERE id = ANY($1)", [ids])).rows;
    const store = track(postgresStatusStore(pools[0]!, { ttlMs: 1 }));
    const [expired, claimed, later] = [freshId(), freshId(), freshId()];
    await store.claimPoll(claimed, 60_000); // the poll window alone holds this row
    await store.publish(statusOf(expired, "PENDING"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A fresh store purges during its first publish or claim (then at most once a minute).
    await track(postgresStatusStore(pools[1]!)).claimPoll(freshId(), 1_000);
    await eventually(async () => (await rowsOf([expired])).length === 0, "the opportunistic purge");
    await store.publish(statusOf(later, "PENDING"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await rowsOf([expired, claimed, later])).toEqual([{ id: claimed }]);
  });
});
