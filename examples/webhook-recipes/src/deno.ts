// Hono on Deno: `deno run --allow-net --allow-env --allow-read src/deno.ts` serves the receiver with
// Deno.serve, its packages from this project's node_modules (Deno reads package.json).

import { createHonoApp } from "./hono.js";
import { redisStoreFromEnv } from "./order-store.js";
import { configFromEnv, createReceiver } from "./receiver.js";

declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
};

// PAYKIT_REDIS_URL: the Redis every instance shares (node-redis runs on Deno's node:net)
const env = Deno.env.toObject();
const receiver = createReceiver(configFromEnv(env, redisStoreFromEnv(env)));

Deno.serve({ port: Number(env.PORT ?? 3000), hostname: "127.0.0.1" }, createHonoApp(() => receiver).fetch);
