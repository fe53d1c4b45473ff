import { describe } from "vitest";
import { createFastifyApp } from "../src/fastify.js";
import { createReceiver } from "../src/receiver.js";
import { smokeTest } from "./harness.js";

describe("Fastify (addContentTypeParser, parseAs buffer)", () => {
  smokeTest(async (config) => {
    const app = createFastifyApp(createReceiver(config));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    return { url, stop: () => app.close() };
  });
});
