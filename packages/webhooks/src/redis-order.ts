import {
  assertRedisClient,
  type IoRedisClient,
  type NodeRedisClient,
  sendRedisCommand,
} from "./internal/redis-client.js";
import type { OrderClaim, OrderState, OrderVerdict } from "./order-rules.js";
import type { OrderBegin, WebhookOrderStore } from "./order-store.js";

/** Options of {@link RedisOrderStore}. */
export interface RedisOrderStoreOptions {
  /** Prefix of every key the store writes. @default "paykit:webhook-order:" */
  keyPrefix?: string;
}

// docs/decisions/webhook-order-stores.md. One hash per resource: `s` and `u` the state (status, updatedAt in ms), `l` and `e` the lease (token,
// end in ms on the server's clock, TIME); the key's PX is the state's TTL, or the lease while there is
// no state. Every operation is one script over that one key, so it is atomic in Redis (and a cluster
// finds the key on one node).
//
// The verdict is webhookOrderVerdict's rules (order-rules.ts) on the claim's data, which the caller
// derived from the contract's tables: ARGV[3] status, ARGV[4] updatedAt ms, ARGV[5] n, then the n
// statuses it follows, then m and the m statuses this version knows.
const VERDICT = `local function verdict(s, u)
  if not s then return 'forward' end
  local mine, theirs = tonumber(ARGV[4]), tonumber(u)
  if mine < theirs then return 'stale' end
  if ARGV[3] == s then return 'repeat' end
  local n = tonumber(ARGV[5])
  local follows, known = {}, {}
  for i = 6, 5 + n do follows[ARGV[i]] = true end
  for i = 7 + n, 6 + n + tonumber(ARGV[6 + n]) do known[ARGV[i]] = true end
  if known[ARGV[3]] and known[s] then
    if follows[s] then return 'forward' end
    return 'stale'
  end
  if mine > theirs then return 'forward' end
  return 'stale'
end`;
// TIME before a write needs effects replication, the only mode from Redis 7 on and opt-in before.
const CLOCK = `if redis.replicate_commands then redis.replicate_commands() end
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

// KEYS[1]; ARGV[1] token, ARGV[2] lease ms, then the claim.
const BEGIN = `${CLOCK}
${VERDICT}
local h = redis.call('HMGET', KEYS[1], 's', 'u', 'l', 'e')
if h[1] then
  local v = verdict(h[1], h[2])
  if v ~= 'forward' then return {v, h[1], h[2]} end
end
local t = now()
if h[3] and tonumber(h[4]) > t then return {'in-progress'} end
local lease = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'l', ARGV[1], 'e', string.format('%.0f', t + lease))
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
if h[1] then return {'started', h[1], h[2]} end
return {'started'}`;

// KEYS[1]; ARGV[1] token ('' holds no lease), ARGV[2] TTL ms, then the claim. A state that moves is
// kept the TTL from now, and as long as another attempt's live lease.
const COMMIT = `${CLOCK}
${VERDICT}
local h = redis.call('HMGET', KEYS[1], 's', 'u', 'l', 'e')
local v = verdict(h[1], h[2])
local ttl = tonumber(ARGV[2])
if h[3] and h[3] == ARGV[1] then redis.call('HDEL', KEYS[1], 'l', 'e')
elseif h[3] then
  local left = tonumber(h[4]) - now()
  if left > ttl then ttl = left end
end
if v == 'forward' then
  redis.call('HSET', KEYS[1], 's', ARGV[3], 'u', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return v`;

const RENEW = `${CLOCK}
if redis.call('HGET', KEYS[1], 'l') ~= ARGV[1] then return 0 end
local lease = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'e', string.format('%.0f', now() + lease))
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return 1`;

const RELEASE = `if redis.call('HGET', KEYS[1], 'l') ~= ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[1], 's') == 1 then redis.call('HDEL', KEYS[1], 'l', 'e')
else redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * A `WebhookOrderStore` in Redis, shared by every instance of a receiver. Each resource is one hash
 * (its last status and `updatedAt`, and the lease of the attempt moving it) with a PX expiry; comparing
 * an event with the state and taking the lease, moving the state, renewing and releasing are each one
 * Lua script, and leases run on the Redis server's clock, the one clock every instance shares.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { WebhookOrderGuard } from "@paykit/webhooks";
 * import { RedisOrderStore } from "@paykit/webhooks/redis";
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const order = new WebhookOrderGuard({ store: new RedisOrderStore(redis) });
 * ```
 */
export class RedisOrderStore implements WebhookOrderStore {
  readonly #client: NodeRedisClient | IoRedisClient;
  readonly #prefix: string;

  constructor(client: NodeRedisClient | IoRedisClient, options: RedisOrderStoreOptions = {}) {
    assertRedisClient(client, "RedisOrderStore");
    this.#client = client;
    this.#prefix = options.keyPrefix ?? "paykit:webhook-order:";
  }

  /** Takes the lease when `claim` moves the resource forward and no other attempt holds it. */
  async begin(key: string, claim: OrderClaim, token: string, leaseMs: number): Promise<OrderBegin> {
    const answer = await this.#eval(BEGIN, key, token, leaseMs, claim);
    const [verdict = "", status, updated] = Array.isArray(answer) ? answer.map(String) : [String(answer)];
    const known = status === undefined ? null : stateOf(status, updated);
    if (verdict === "in-progress") return { answer: verdict };
    if (verdict === "started") return { answer: verdict, previous: known };
    if ((verdict === "repeat" || verdict === "stale") && known !== null) return { answer: verdict, known };
    throw unexpected(verdict);
  }

  /** Extends the lease when `token` still holds it. */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return Number(await this.#eval(RENEW, key, token, leaseMs)) === 1;
  }

  /** Moves the state forward when `claim` still is, and frees `token`'s lease. */
  async commit(key: string, claim: OrderClaim, token: string, ttlMs: number): Promise<OrderVerdict> {
    const verdict = String(await this.#eval(COMMIT, key, token, ttlMs, claim));
    if (verdict === "forward" || verdict === "repeat" || verdict === "stale") return verdict;
    throw unexpected(verdict);
  }

  /** Frees the lease only while `token` holds it. */
  async release(key: string, token: string): Promise<void> {
    await this.#eval(RELEASE, key, token, 0);
  }

  /** The resource's last status and `updatedAt`, or null. */
  async read(key: string): Promise<OrderState | null> {
    const answer = await sendRedisCommand(this.#client, ["HMGET", this.#prefix + key, "s", "u"]);
    const [status, updated] = Array.isArray(answer) ? answer : [];
    return typeof status === "string" && status !== "" ? stateOf(status, String(updated)) : null;
  }

  #eval(script: string, key: string, token: string, ms: number, claim?: OrderClaim): Promise<unknown> {
    const args = ["EVAL", script, "1", this.#prefix + key, token, String(ms)];
    if (claim !== undefined) {
      args.push(claim.status, String(claim.updatedAtMs), String(claim.follows.length), ...claim.follows);
      args.push(String(claim.statuses.length), ...claim.statuses);
    }
    return sendRedisCommand(this.#client, args);
  }
}

function stateOf(status: string, updated: string | undefined): OrderState {
  return { status, updatedAtMs: Number(updated) };
}

function unexpected(answer: string): Error {
  return new Error(`RedisOrderStore: unexpected answer ${JSON.stringify(answer.slice(0, 40))} from Redis`);
}
