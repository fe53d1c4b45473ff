import type { AddressInfo } from "node:net";
import { Paykit } from "@paykit/node";
import { createApp } from "../../examples/express-backend/src/app.js";
import { createWebhookApp } from "../../examples/hono-edge/src/app.js";
import { RECIPES } from "../../examples/webhook-recipes/test/recipes.js";

/** The API a receiver confirms events against: the doctor test's mock and an account's keys. */
export interface ConfirmingApi {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
}

/** A recipe's webhook receiver, started as its own smoke test starts it. */
export interface StartedReceiver {
  url: string;
  /** Set when the receiver is served in-process (web-standard apps): the doctor sends through it. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

/**
 * Every webhook receiver recipe in examples/, in ONE place: a new recipe appends an entry here and the
 * doctor test runs its battery against it.
 */
export const RECIPE_RECEIVERS: ReadonlyArray<{
  name: string;
  start(secret: string, api: ConfirmingApi): Promise<StartedReceiver>;
}> = [
  {
    name: "express-backend",
    async start(secret) {
      // The webhook route needs no API calls; the client is only there because the app serves both.
      const paykit = new Paykit({
        publicKey: "pk_test_doctor00",
        secretKey: "sk_test_doctor00",
        baseUrl: "http://127.0.0.1:9",
      });
      const app = createApp({ paykit, webhookSecret: secret, onEvent: () => undefined });
      const server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/paykit`,
        async close() {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        },
      };
    },
  },
  {
    name: "hono-edge",
    async start(secret) {
      const app = createWebhookApp({ secret, onEvent: () => undefined });
      return {
        url: "http://hono-edge.test/webhooks/paykit",
        fetch: async (url, init) => app.request(url, init),
        async close() {},
      };
    },
  },
  // examples/webhook-recipes: each framework's recipe, started as its smoke test starts it (its
  // order store in memory here: the doctor checks one instance's answers)
  ...RECIPES.map((recipe) => ({
    name: `webhook-recipes: ${recipe.name}`,
    async start(secret: string, api: ConfirmingApi): Promise<StartedReceiver> {
      const running = await recipe.start({ ...api, webhookSecret: secret });
      return { url: `${running.url}/webhooks/paykit`, close: () => running.stop() };
    },
  })),
];
