import type { AddressInfo } from "node:net";
import { describe } from "vitest";
import { createExpressApp } from "../src/express.js";
import { createReceiver } from "../src/receiver.js";
import { smokeTest } from "./harness.js";

describe("Express (express.raw on the route)", () => {
  smokeTest(async (config) => {
    const server = createExpressApp(createReceiver(config)).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      stop: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
});
