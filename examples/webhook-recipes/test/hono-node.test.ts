import type { AddressInfo } from "node:net";
import { describe } from "vitest";
import { serveHonoOnNode } from "../src/hono-node.js";
import { createReceiver } from "../src/receiver.js";
import { smokeTest } from "./harness.js";

describe("Hono on Node (@hono/node-server)", () => {
  smokeTest(async (config) => {
    const server = await serveHonoOnNode(createReceiver(config));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      stop: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
});
