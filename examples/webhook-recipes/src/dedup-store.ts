// The dedupe store every instance of the receiver shares on Node and Bun: Redis over TCP (node-redis),
// through @paykit/webhooks/redis. One client per process, connected on first use.
import { RedisDedupStore } from "@paykit/webhooks/redis";
import { createClient } from "redis";

/** A shared store on the Redis at `url`, and how to close its connection. */
export function redisDedupStore(url: string): { store: RedisDedupStore; close(): Promise<void> } {
  const client = createClient({ url });
  // node-redis reconnects by itself; without a listener an "error" event would crash the process
  client.on("error", () => {});
  let connected: Promise<unknown> | undefined;
  const store = new RedisDedupStore({
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
export function redisStoreFromEnv(env: Record<string, string | undefined>): RedisDedupStore | undefined {
  return env.PAYKIT_REDIS_URL ? redisDedupStore(env.PAYKIT_REDIS_URL).store : undefined;
}
