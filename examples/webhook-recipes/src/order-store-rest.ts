// The shared order store for runtimes without TCP sockets (Cloudflare Workers, the Next.js Edge
// runtime): the same Redis, reached over HTTPS with Upstash's REST protocol (POST the command as a JSON
// array, read `{ result }`), which Upstash and Vercel KV serve. RedisOrderStore only needs `sendCommand`.
import type { WebhookOrderStore } from "@paykit/webhooks";
import { RedisOrderStore } from "@paykit/webhooks/redis";

/** A shared store on the Redis behind the REST endpoint `url`, authorized by `token`. */
export function restRedisOrderStore(url: string, token: string): WebhookOrderStore {
  return new RedisOrderStore({
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
export function restStoreFromEnv(env: Record<string, string | undefined>): WebhookOrderStore | undefined {
  const url = env.PAYKIT_REDIS_REST_URL;
  const token = env.PAYKIT_REDIS_REST_TOKEN;
  return url && token ? restRedisOrderStore(url, token) : undefined;
}
