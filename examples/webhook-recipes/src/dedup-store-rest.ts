// The shared dedupe store for runtimes without TCP sockets (Cloudflare Workers, the Next.js Edge
// runtime): the same Redis, reached over HTTPS with Upstash's REST protocol (POST the command as a JSON
// array, read `{ result }`), which Upstash and Vercel KV serve. RedisDedupStore only needs `sendCommand`.
import type { WebhookDedupStore } from "@paykit/webhooks";
import { RedisDedupStore } from "@paykit/webhooks/redis";

/** A shared store on the Redis behind the REST endpoint `url`, authorized by `token`. */
export function restRedisDedupStore(url: string, token: string): WebhookDedupStore {
  return new RedisDedupStore({
    async sendCommand(args: string[]) {
      const response = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      const answer = (await response.json()) as { result?: unknown; error?: string };
      if (!response.ok || answer.error !== undefined) {
        throw new Error(`Redis REST ${args[0]} failed: ${answer.error ?? response.status}`);
      }
      return answer.result;
    },
  });
}

/** The REST store named by PAYKIT_REDIS_REST_URL and PAYKIT_REDIS_REST_TOKEN, when both are set. */
export function restStoreFromEnv(env: Record<string, string | undefined>): WebhookDedupStore | undefined {
  const url = env.PAYKIT_REDIS_REST_URL;
  const token = env.PAYKIT_REDIS_REST_TOKEN;
  return url && token ? restRedisDedupStore(url, token) : undefined;
}
