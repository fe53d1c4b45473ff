// lib/paykit.ts of a Next.js app: one receiver per server instance, configured from the environment.
// Each variable is read by its full name: `next build` inlines `process.env.NAME` for the Edge runtime.
import { restStoreFromEnv } from "./order-store-rest.js";
import { configFromEnv, createReceiver, type Receiver } from "./receiver.js";

let receiver: Receiver | undefined;

/** The app's receiver, built on first use. */
export function paykitReceiver(): Receiver {
  receiver ??= createReceiver(
    configFromEnv(
      {
        PAYKIT_PUBLIC_KEY: process.env.PAYKIT_PUBLIC_KEY,
        PAYKIT_SECRET_KEY: process.env.PAYKIT_SECRET_KEY,
        PAYKIT_BASE_URL: process.env.PAYKIT_BASE_URL,
        PAYKIT_WEBHOOK_SECRET: process.env.PAYKIT_WEBHOOK_SECRET,
      },
      // one store for both runtimes: Redis over HTTPS (Upstash, Vercel KV), which the Edge runtime can reach
      restStoreFromEnv({
        PAYKIT_REDIS_REST_URL: process.env.PAYKIT_REDIS_REST_URL,
        PAYKIT_REDIS_REST_TOKEN: process.env.PAYKIT_REDIS_REST_TOKEN,
      }),
    ),
  );
  return receiver;
}
