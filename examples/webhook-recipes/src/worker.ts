// Hono on Cloudflare Workers: the secret and keys are bindings (`env`), so the receiver is built on the
// first request. Verification needs only WebCrypto; `nodejs_compat` is not required by Paykit.
import { createHonoApp } from "./hono.js";
import { configFromEnv, createReceiver, type Receiver } from "./receiver.js";

/** The Worker's bindings. */
export interface Env {
  PAYKIT_PUBLIC_KEY: string;
  PAYKIT_SECRET_KEY: string;
  PAYKIT_BASE_URL: string;
  PAYKIT_WEBHOOK_SECRET: string;
}

let receiver: Receiver | undefined;

export default createHonoApp<Env>((env) => {
  receiver ??= createReceiver(configFromEnv({ ...env }));
  return receiver;
});
