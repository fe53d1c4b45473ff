// A local stand-in for Upstash's REST front (what `serverless-redis-http` does in Upstash's own docs):
// POST a Redis command as a JSON array with the bearer token, get `{ result }` or `{ error }`. The
// commands run on the test's real Redis, so Workers and the Edge runtime share the store with Node.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "redis";

/** The REST endpoint in front of the Redis at `redisUrl`. */
export async function startRedisRest(redisUrl: string) {
  const token = `rest-${Math.random().toString(36).slice(2)}`;
  const client = await createClient({ url: redisUrl }).connect();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const answer = (status: number, body: object) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: "Unauthorized" });
      try {
        const args = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        if (!Array.isArray(args) || !args.every((a) => typeof a === "string" || typeof a === "number"))
          return answer(400, { error: "the body must be a JSON array of strings" });
        answer(200, { result: await client.sendCommand(args.map(String)) });
      } catch (error) {
        answer(400, { error: String((error as Error).message) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await client.close();
    },
  };
}
