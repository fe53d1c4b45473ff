// The Next.js route handler module, tested through its exported POST with real Requests: on the
// Node.js runtime served by a plain node:http adaptor, on the Edge runtime inside edge-runtime (the
// runtime Next.js uses for `runtime = "edge"`), with the env inlined the way `next build` inlines it.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { EdgeRuntime, runServer } from "edge-runtime";
import { describe, expect, it } from "vitest";
import * as nodeRoute from "../src/app/api/webhooks/paykit/route.js";
import * as edgeRoute from "../src/app/api/webhooks/paykit-edge/route.js";
import type { ReceiverConfig } from "../src/receiver.js";
import { bundle } from "./bundle.js";
import { smokeTest } from "./harness.js";

function envOf(config: ReceiverConfig): Record<string, string> {
  return {
    PAYKIT_PUBLIC_KEY: config.publicKey,
    PAYKIT_SECRET_KEY: config.secretKey,
    PAYKIT_BASE_URL: config.baseUrl,
    PAYKIT_WEBHOOK_SECRET: config.webhookSecret,
  };
}

describe("Next.js route handler, runtime = nodejs", () => {
  it("declares its runtime", () => {
    expect(nodeRoute.runtime).toBe("nodejs");
    expect(edgeRoute.runtime).toBe("edge");
  });
  smokeTest(async (config) => {
    Object.assign(process.env, envOf(config));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: (request) => nodeRoute.POST(request), port: 0, hostname: "127.0.0.1" }, () =>
        resolve(s),
      );
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      stop: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
});

describe("Next.js route handler, runtime = edge (edge-runtime)", () => {
  smokeTest(async (config) => {
    const env = envOf(config);
    const code = await bundle("src/app/api/webhooks/paykit-edge/route.ts", {
      format: "iife",
      globalName: "__route",
      define: Object.fromEntries(
        Object.entries(env).map(([k, v]) => [`process.env.${k}`, JSON.stringify(v)]),
      ),
    });
    const runtime = new EdgeRuntime({
      initialCode: `${code}\naddEventListener("fetch", (event) => event.respondWith(__route.POST(event.request)));`,
    });
    const server = await runServer({ runtime, port: 0, host: "127.0.0.1" });
    return { url: server.url.replace(/\/$/, ""), stop: () => server.close() };
  });
});
