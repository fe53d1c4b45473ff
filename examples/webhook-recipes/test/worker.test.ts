// Hono on Cloudflare Workers: src/worker.ts bundled and run in workerd through Miniflare, listening
// on loopback so the mock delivers to it over HTTP, with the keys and the secret as bindings.
import { Miniflare } from "miniflare";
import { describe } from "vitest";
import { bundle } from "./bundle.js";
import { smokeTest } from "./harness.js";

describe("Hono on Workers (Miniflare, workerd)", () => {
  smokeTest(async (config) => {
    const script = await bundle("src/worker.ts", { format: "esm" });
    const mf = new Miniflare({
      modules: true,
      script,
      compatibilityDate: "2025-09-01",
      host: "127.0.0.1",
      port: 0,
      bindings: {
        PAYKIT_PUBLIC_KEY: config.publicKey,
        PAYKIT_SECRET_KEY: config.secretKey,
        PAYKIT_BASE_URL: config.baseUrl,
        PAYKIT_WEBHOOK_SECRET: config.webhookSecret,
      },
    });
    const url = await mf.ready;
    return { url: url.origin, stop: () => mf.dispose() };
  });
});
