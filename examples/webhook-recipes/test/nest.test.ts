import { describe } from "vitest";
import { createNestApp } from "../src/nest.js";
import { createReceiver } from "../src/receiver.js";
import { smokeTest } from "./harness.js";

describe("NestJS (rawBody: true)", () => {
  smokeTest(async (config) => {
    const app = await createNestApp(createReceiver(config));
    await app.listen(0, "127.0.0.1");
    const { port } = app.getHttpServer().address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, stop: () => app.close() };
  });
});
