// Hono on Bun: `bun run src/bun.ts` serves the default export (Bun.serve's options).

import { createHonoApp } from "./hono.js";
import { redisStoreFromEnv } from "./order-store.js";
import { configFromEnv, createReceiver } from "./receiver.js";

// PAYKIT_REDIS_URL: the Redis every instance shares (node-redis runs on Bun's node:net)
const receiver = createReceiver(configFromEnv(process.env, redisStoreFromEnv(process.env)));

export default {
  port: Number(process.env.PORT ?? 3000),
  hostname: "127.0.0.1",
  fetch: createHonoApp(() => receiver).fetch,
};
