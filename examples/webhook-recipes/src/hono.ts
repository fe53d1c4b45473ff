// Hono: c.req.raw is the web Request; the receiver reads its body once, as text. Runs on Node through
// @hono/node-server (src/hono-node.ts), on Bun (src/bun.ts) and on Workers (src/worker.ts).
import { Hono } from "hono";
import type { Receiver } from "./receiver.js";

/** A Hono app with the webhook route; `receiver` is called per request (Workers build it from `env`). */
export function createHonoApp<Env extends object = object>(
  receiver: (env: Env) => Receiver,
): Hono<{ Bindings: Env }> {
  const app = new Hono<{ Bindings: Env }>();
  app.post("/webhooks/paykit", async (c) => c.body(null, await receiver(c.env).fromRequest(c.req.raw)));
  return app;
}
