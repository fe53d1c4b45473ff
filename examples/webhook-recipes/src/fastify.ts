// Fastify: inside an encapsulated plugin, a content-type parser that keeps application/json as a
// Buffer, so only the webhook route sees raw bytes and the rest of the app keeps Fastify's JSON parser.
import Fastify, { type FastifyInstance } from "fastify";
import type { Receiver } from "./receiver.js";

/** A Fastify app with the webhook route. */
export function createFastifyApp(receiver: Receiver): FastifyInstance {
  const app = Fastify();
  app.register(async (webhooks) => {
    webhooks.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
      done(null, body);
    });
    webhooks.post("/webhooks/paykit", async (request, reply) => {
      return reply.code(await receiver.fromRaw(request.body as Buffer, request.headers)).send();
    });
  });
  return app;
}
