/**
 * A Redis payment-status store: every instance of a merchant's backend shares payin statuses and
 * live updates through one Redis (node-redis 4-6 or ioredis).
 *
 * @packageDocumentation
 * @module @paykit/node/checkout/redis
 */
import {
  DEFAULT_FRESH_WINDOW_MS,
  DEFAULT_STATUS_TTL_MS,
  decodeStatus,
  encodeStatus,
  isFinalStatus,
  positiveMs,
  updatedAtMs,
} from "./status-codec.js";
import type { PaymentStatus, PaymentStatusStore, Unsubscribe } from "./store.js";
import { Subscriptions } from "./subscriptions.js";

/**
 * A Redis client as `redisStatusStore` uses it: node-redis (`redis` 4-6, `createClient()`), which has
 * `sendCommand(args)`, or ioredis, which has `call(command, ...args)`. Cluster clients of either work
 * too: the two keys a script touches share a hash tag, so they live in one slot.
 */
export type RedisStatusClient = NodeRedisStatusClient | IoRedisStatusClient;

/** The part of a node-redis client the store uses. */
export interface NodeRedisStatusClient {
  /** Sends one raw command, e.g. `["SET", key, value]`. */
  sendCommand(args: string[]): Promise<unknown>;
  /** A new, unconnected client with the same options (the store's subscriber connection). */
  duplicate(): NodeRedisStatusClient;
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Subscribes this connection to `channel`. */
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Removes `listener` from `channel` (the connection unsubscribes when no listener is left). */
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Adds an event listener (the store listens to `error` on a connection it opened). */
  on(event: "error", listener: (error: unknown) => void): unknown;
  /** Closes the connection after pending replies (node-redis 5+). */
  close?(): Promise<unknown>;
  /** Closes the connection after pending replies (node-redis 4). */
  quit?(): Promise<unknown>;
}

/** The part of an ioredis client the store uses. */
export interface IoRedisStatusClient {
  /** Sends one raw command, e.g. `call("SET", key, value)`. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** A new client with the same options, connecting by itself (the store's subscriber connection). */
  duplicate(): IoRedisStatusClient;
  /** Subscribes this connection to `channel`. */
  subscribe(channel: string): Promise<unknown>;
  /** Unsubscribes this connection from `channel`. */
  unsubscribe(channel: string): Promise<unknown>;
  /** Adds an event listener (`message` for pub/sub, `error` on a connection the store opened). */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Removes an event listener. */
  removeListener(event: string, listener: (...args: string[]) => void): unknown;
  /** Closes the connection after pending replies. */
  quit(): Promise<unknown>;
  /** Closes the connection at once. */
  disconnect?(): void;
}

/** Options of {@link redisStatusStore}. */
export interface RedisStatusStoreOptions {
  /**
   * Prefix of every key and of the channel the store uses: statuses are `<prefix>status:{<id>}`, poll
   * windows `<prefix>poll:{<id>}`, and updates travel on the channel `<prefix>updates`.
   * @default "paykit:payment-status:"
   */
  keyPrefix?: string;
  /**
   * How long a status is remembered after its last write, in milliseconds (the key's PX). Longer than
   * a shopper stays on the payment page; after it, `latest` answers null and the handler asks the service.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /**
   * A connection dedicated to SUBSCRIBE (a subscribed Redis connection can send no other command).
   * When given, it must be connected, and `close()` only unsubscribes it. When absent, the store opens
   * one with `client.duplicate()` on the first `subscribe` and quits it on `close()`.
   */
  subscriber?: RedisStatusClient;
  /**
   * The poll-free window of a fresh `publish` that names no `pollIntervalMs`, in milliseconds.
   * @default 2_000
   */
  pollIntervalMs?: number;
  /**
   * Called with errors the store cannot hand to a caller: the subscriber connection's (node-redis and
   * ioredis reconnect and resubscribe by themselves) and a listener's throw.
   * @default ignores them
   */
  onError?: (error: unknown) => void;
}

const STORE = "redisStatusStore";

// KEYS: the status, the poll window (one hash tag, one slot). ARGV: the stored record
// "<updatedAt ms> <1 if final> <json>", updatedAt ms, TTL ms, poll-free window ms (0: not fresh),
// channel, message. The stored status is kept when it is final or newer; a fresh publish widens the
// window to at least its length; only a status that was stored is published, so a subscriber never
// sees an older status after a newer one from this script.
const PUBLISH = `local stored = 1
local current = redis.call('GET', KEYS[1])
if current then
  local space = string.find(current, ' ', 1, true)
  if space and (string.sub(current, space + 1, space + 1) == '1'
      or tonumber(string.sub(current, 1, space - 1)) > tonumber(ARGV[2])) then
    stored = 0
  end
end
if stored == 1 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3]) end
local window = tonumber(ARGV[4])
if window > 0 and redis.call('PTTL', KEYS[2]) < window then
  redis.call('SET', KEYS[2], 'webhook', 'PX', window)
end
if stored == 1 then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return stored`;

type Listener = (status: PaymentStatus) => void;

/**
 * A `PaymentStatusStore` (`@paykit/node/checkout`) in Redis, shared by every instance of the
 * merchant's backend: `notify` on one instance reaches the open status streams on all of them, and
 * one instance per interval polls the service for an id.
 *
 * - `publish` is one Lua script: it keeps the newest status per id (never replacing a final one, nor
 *   one with a later `updatedAt`) for `ttlMs`, marks the id fresh for the poll interval when the status
 *   came from a webhook, and PUBLISHes it on `<keyPrefix>updates`.
 * - `subscribe` uses a dedicated connection (`options.subscriber`, or `client.duplicate()`). While it
 *   is down, updates published meanwhile do not reach this instance; the handler's polling covers them.
 * - `claimPoll` is `SET <keyPrefix>poll:{id} NX PX intervalMs`: one winner per window across the fleet.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { redisStatusStore } from "@paykit/node/checkout/redis";
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const store = redisStatusStore(redis); // opens its subscriber with redis.duplicate()
 * ```
 */
export function redisStatusStore(
  client: RedisStatusClient,
  options: RedisStatusStoreOptions = {},
): PaymentStatusStore {
  assertClient(client, "client", options.subscriber === undefined);
  if (options.subscriber !== undefined) assertClient(options.subscriber, "options.subscriber", false);
  return new RedisStatusStore(client, options);
}

class RedisStatusStore implements PaymentStatusStore {
  readonly #client: RedisStatusClient;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #ttlMs: number;
  readonly #windowMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #given: RedisStatusClient | undefined;
  // The subscriber connection, opened by the first subscribe.
  readonly #subscriptions: Subscriptions<RedisStatusClient>;
  #closed = false;

  constructor(client: RedisStatusClient, options: RedisStatusStoreOptions) {
    this.#client = client;
    this.#prefix = options.keyPrefix ?? "paykit:payment-status:";
    if (this.#prefix.includes("{")) throw new TypeError(`${STORE}: keyPrefix must not contain "{"`);
    this.#channel = `${this.#prefix}updates`;
    this.#ttlMs = positiveMs(options.ttlMs, DEFAULT_STATUS_TTL_MS, "ttlMs", STORE);
    this.#windowMs = positiveMs(options.pollIntervalMs, DEFAULT_FRESH_WINDOW_MS, "pollIntervalMs", STORE);
    this.#onError = options.onError ?? (() => undefined);
    this.#given = options.subscriber;
    this.#subscriptions = new Subscriptions(() => this.#openSubscriber(), this.#onError);
  }

  async publish(status: PaymentStatus, options: { fresh?: boolean; pollIntervalMs?: number } = {}) {
    const ms = updatedAtMs(status, STORE);
    const json = encodeStatus(status);
    const window = options.fresh === true ? (options.pollIntervalMs ?? this.#windowMs) : 0;
    const record = `${ms} ${isFinalStatus(status.status) ? 1 : 0} ${json}`;
    await this.#command([
      "EVAL",
      PUBLISH,
      "2",
      this.#key("status", status.id),
      this.#key("poll", status.id),
      record,
      String(ms),
      String(this.#ttlMs),
      String(Math.max(0, Math.round(window))),
      this.#channel,
      json,
    ]);
  }

  async subscribe(listener: Listener): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`${STORE}: the store is closed`);
    return this.#subscriptions.add(listener);
  }

  async latest(id: string): Promise<PaymentStatus | null> {
    const record = await this.#command(["GET", this.#key("status", id)]);
    if (typeof record !== "string") return null;
    const first = record.indexOf(" ");
    const second = record.indexOf(" ", first + 1);
    return first < 0 || second < 0 ? null : decodeStatus(record.slice(second + 1));
  }

  async claimPoll(id: string, intervalMs: number): Promise<boolean> {
    const window = String(Math.max(1, Math.round(intervalMs)));
    return (await this.#command(["SET", this.#key("poll", id), "poll", "NX", "PX", window])) === "OK";
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const subscriber = await this.#subscriptions.end();
    if (subscriber === undefined) return;
    if (isIoRedis(subscriber)) {
      subscriber.removeListener("message", this.#onIoMessage);
      if (subscriber === this.#given) await subscriber.unsubscribe(this.#channel);
      else await subscriber.quit();
    } else {
      if (subscriber === this.#given) await subscriber.unsubscribe(this.#channel, this.#onMessage);
      else await (subscriber.close ?? subscriber.quit)?.call(subscriber);
    }
  }

  // `{id}` is a hash tag: a cluster keeps an id's status and poll window in one slot, as EVAL needs.
  #key(kind: "status" | "poll", id: string): string {
    return `${this.#prefix}${kind}:{${id}}`;
  }

  async #openSubscriber(): Promise<RedisStatusClient> {
    const owned = this.#given === undefined;
    const subscriber = this.#given ?? this.#client.duplicate();
    // An `error` event without a listener would end the process (node-redis); the client reconnects.
    if (owned) subscriber.on("error", (error: unknown) => this.#onError(error));
    try {
      if (isIoRedis(subscriber)) {
        subscriber.on("message", this.#onIoMessage);
        await subscriber.subscribe(this.#channel);
      } else {
        if (owned) await subscriber.connect();
        await subscriber.subscribe(this.#channel, this.#onMessage);
      }
    } catch (error) {
      if (owned) await closeQuietly(subscriber);
      else if (isIoRedis(subscriber)) subscriber.removeListener("message", this.#onIoMessage);
      throw error;
    }
    if (this.#closed) {
      // close() ran while the connection opened: it found nothing to close, so close it here.
      if (owned) await closeQuietly(subscriber);
      throw new Error(`${STORE}: the store is closed`);
    }
    return subscriber;
  }

  readonly #onMessage = (message: string): void => {
    const status = decodeStatus(message);
    if (status !== null) this.#subscriptions.deliver(status);
  };

  readonly #onIoMessage = (channel: string, message: string): void => {
    if (channel === this.#channel) this.#onMessage(message);
  };

  #command(args: string[]): Promise<unknown> {
    const client = this.#client;
    // ioredis has both `call` and a lower-level `sendCommand(Command)`; `call` is its raw-command API.
    if (isIoRedis(client)) return client.call(args[0] as string, ...args.slice(1));
    return client.sendCommand(args);
  }
}

function isIoRedis(client: RedisStatusClient): client is IoRedisStatusClient {
  return typeof (client as { call?: unknown }).call === "function";
}

async function closeQuietly(client: RedisStatusClient): Promise<void> {
  try {
    if (isIoRedis(client)) client.disconnect?.();
    else await (client.close ?? client.quit)?.call(client);
  } catch {
    // Already closed, or never connected: nothing is left open.
  }
}

function assertClient(client: unknown, name: string, needsDuplicate: boolean): void {
  const methods = client as { sendCommand?: unknown; call?: unknown; duplicate?: unknown } | null;
  if (
    methods === null ||
    typeof methods !== "object" ||
    (typeof methods.sendCommand !== "function" && typeof methods.call !== "function")
  ) {
    throw new TypeError(`${STORE}: ${name} must be a node-redis or ioredis client`);
  }
  if (needsDuplicate && typeof methods.duplicate !== "function") {
    throw new TypeError(`${STORE}: client must have duplicate(), or pass options.subscriber`);
  }
}
