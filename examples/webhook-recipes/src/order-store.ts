// The order store every instance of the receiver shares on Node and Bun: Redis over TCP (node-redis),
// through @paykit/webhooks/redis. One client per process, connected on first use.
import { RedisOrderStore } from "@paykit/webhooks/redis";
import { createClient } from "redis";

/** A shared store on the Redis at `url`, and how to close its connection. */
export function redisOrderStore(url: string): { store: RedisOrderStore; close(): Promise<void> } {
  // Commands fail at once while Redis is unreachable (rather than wait in a queue until it is back):
  // the delivery is answered 500 and the sender retries it.
  const client = createClient({ url, disableOfflineQueue: true });
  // node-redis reconnects by itself; without a listener an "error" event would crash the process
  client.on("error", () => {});
  let connected: Promise<unknown> | undefined;
  const store = new RedisOrderStore({
    async sendCommand(args: string[]) {
      connected ??= client.connect();
      await connected;
      return client.sendCommand(args);
    },
  });
  return {
    store,
    close: async () => {
      if (connected) await client.close();
    },
  };
}

/** The store at PAYKIT_REDIS_URL, when it is set. */
export function redisStoreFromEnv(env: Record<string, string | undefined>): RedisOrderStore | undefined {
  return env.PAYKIT_REDIS_URL ? redisOrderStore(env.PAYKIT_REDIS_URL).store : undefined;
}
