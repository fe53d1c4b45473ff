// Hono on Cloudflare Workers: the secret and keys are bindings (`env`), so the receiver is built on the
// first request. Verification needs only WebCrypto; `nodejs_compat` is not required by Paykit. The
// shared order store is Redis over HTTPS (a Worker has no raw TCP to Redis): Upstash's REST protocol.

import { createHonoApp } from "./hono.js";
import { restStoreFromEnv } from "./order-store-rest.js";
import { configFromEnv, createReceiver, type Receiver } from "./receiver.js";

/** The Worker's bindings. */
export interface Env {
  PAYKIT_PUBLIC_KEY: string;
  PAYKIT_SECRET_KEY: string;
  PAYKIT_BASE_URL: string;
  PAYKIT_WEBHOOK_SECRET: string;
  /** The shared Redis's REST endpoint and token (Upstash, Vercel KV). */
  PAYKIT_REDIS_REST_URL?: string;
  PAYKIT_REDIS_REST_TOKEN?: string;
}

let receiver: Receiver | undefined;

export default createHonoApp<Env>((env) => {
  receiver ??= createReceiver(configFromEnv({ ...env }, restStoreFromEnv({ ...env })));
  return receiver;
});
