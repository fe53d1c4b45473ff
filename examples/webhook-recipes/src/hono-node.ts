// Hono on Node: Node's http server does not speak fetch, @hono/node-server adapts it.
import { type ServerType, serve } from "@hono/node-server";
import { createHonoApp } from "./hono.js";
import type { Receiver } from "./receiver.js";

/** Serves the Hono app on Node; resolves the server once it listens. */
export function serveHonoOnNode(receiver: Receiver, port = 0): Promise<ServerType> {
  return new Promise((resolve) => {
    const server = serve({ fetch: createHonoApp(() => receiver).fetch, port, hostname: "127.0.0.1" }, () =>
      resolve(server),
    );
  });
}
