/**
 * The Redis stores shared by every instance of a webhook receiver: de-duplication and order.
 *
 * @packageDocumentation
 * @module @paykit/webhooks/redis
 */
import type { DedupBeginResult, WebhookDedupStore } from "./dedupe.js";
import {
  assertRedisClient,
  type IoRedisClient,
  type NodeRedisClient,
  sendRedisCommand,
} from "./internal/redis-client.js";

export type { IoRedisClient, NodeRedisClient } from "./internal/redis-client.js";
export { RedisOrderStore, type RedisOrderStoreOptions } from "./redis-order.js";

/**
 * A Redis client as the Redis stores use it: node-redis (`redis` 4-6, `createClient()`), which
 * has `sendCommand(args)`, or ioredis, which has `call(command, ...args)`. Cluster clients of either work
 * too, as every script touches one key.
 */
export type RedisDedupClient = NodeRedisClient | IoRedisClient;

/** Options of {@link RedisDedupStore}. */
export interface RedisDedupStoreOptions {
  /** Prefix of every key the store writes. @default "paykit:webhook-dedup:" */
  keyPrefix?: string;
}

// Values: "p:<token>" while an attempt holds the lease (the key's PX is the lease), "d" once done
// (the key's PX is the TTL). Every transition is one script, so it is atomic in Redis.
const BEGIN = `local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], 'p:' .. ARGV[1], 'PX', ARGV[2]) return 'started' end
if v == 'd' then return 'done' end
return 'in-progress'`;
const RENEW = `if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * A `WebhookDedupStore` in Redis, shared by every instance of a receiver. The lease and the done
 * mark are one key with a PX expiry; taking, renewing and releasing the lease are Lua scripts that
 * compare the attempt's token, so a late `release` never frees another attempt's lease.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { WebhookDeduplicator } from "@paykit/webhooks";
 * import { RedisDedupStore } from "@paykit/webhooks/redis";
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const dedup = new WebhookDeduplicator({ store: new RedisDedupStore(redis) });
 * ```
 */
export class RedisDedupStore implements WebhookDedupStore {
  readonly #client: RedisDedupClient;
  readonly #prefix: string;

  constructor(client: RedisDedupClient, options: RedisDedupStoreOptions = {}) {
    assertRedisClient(client, "RedisDedupStore");
    this.#client = client;
    this.#prefix = options.keyPrefix ?? "paykit:webhook-dedup:";
  }

  /** Takes the lease unless the key is held or done. */
  async begin(key: string, token: string, leaseMs: number): Promise<DedupBeginResult> {
    const answer = String(await this.#eval(BEGIN, key, token, leaseMs));
    if (answer === "started" || answer === "in-progress" || answer === "done") return answer;
    throw new Error(`RedisDedupStore: unexpected answer ${JSON.stringify(answer.slice(0, 40))} from Redis`);
  }

  /** Extends the lease when `token` still holds it. */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return Number(await this.#eval(RENEW, key, token, leaseMs)) === 1;
  }

  /** Marks the key done for `ttlMs`. */
  async complete(key: string, _token: string, ttlMs: number): Promise<void> {
    await this.#command(["SET", this.#prefix + key, "d", "PX", String(ttlMs)]);
  }

  /** Deletes the key only while `token` holds its lease. */
  async release(key: string, token: string): Promise<void> {
    await this.#eval(RELEASE, key, token, 0);
  }

  #eval(script: string, key: string, token: string, ms: number): Promise<unknown> {
    return this.#command(["EVAL", script, "1", this.#prefix + key, token, String(ms)]);
  }

  #command(args: string[]): Promise<unknown> {
    return sendRedisCommand(this.#client, args);
  }
}
