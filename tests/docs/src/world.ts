// The world every docs block runs in: one real mock server (over HTTP), an account with a webhook
// secret whose keys are in the environment a merchant's code reads (PAYKIT_*), a loopback receiver
// that captures the mock's signed webhook deliveries so a block can verify a real one, and a real Redis
// (REDIS_URL) for the blocks that show a shared dedupe store.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMockServer, type MockServer } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { startRedis, type TestService } from "../../../scripts/services.mjs";

/** A webhook delivery as the receiver got it: the exact bytes and the headers. */
export interface Delivery {
  rawBody: Uint8Array;
  headers: IncomingHttpHeaders;
}

/** What the contexts read. */
export interface World {
  mock: MockServer;
  keys: { publicKey: string; secretKey: string; accountId: string };
  secret: string;
  /** Where the mock POSTs deliveries for this world. */
  webhookUrl: string;
  deliveries: Delivery[];
  receiver: Server;
  /** The Redis the shared-store blocks connect to (REDIS_URL): Debian's redis-server on loopback. */
  redis: TestService;
}

let current: World | undefined;

/** The running world; throws when the docs test has not started it. */
export function world(): World {
  if (!current) throw new Error("the docs world is not started: run the blocks through test/docs.test.ts");
  return current;
}

/** Starts the mock, the signed account and the receiver, and exports PAYKIT_* for the blocks. */
export async function startWorld(): Promise<World> {
  const mock = await createMockServer({ autoAdvance: false });
  const secret = generateWebhookSecret();
  const keys = await mock.control.createAccount({ webhookSecret: secret, balance: 5_000_000 });
  const deliveries: Delivery[] = [];
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    deliveries.push({ rawBody: new Uint8Array(Buffer.concat(chunks)), headers: req.headers });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  process.env.PAYKIT_PUBLIC_KEY = keys.publicKey;
  process.env.PAYKIT_SECRET_KEY = keys.secretKey;
  process.env.PAYKIT_BASE_URL = mock.url;
  process.env.PAYKIT_WEBHOOK_SECRET = secret;
  process.env.PORT = "0"; // blocks that listen take a free port
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  current = {
    mock,
    keys: { publicKey: keys.publicKey, secretKey: keys.secretKey, accountId: keys.accountId },
    secret,
    webhookUrl: `http://127.0.0.1:${port}/webhooks/paykit`,
    deliveries,
    receiver,
    redis,
  };
  return current;
}

/** Stops what {@link startWorld} started. */
export async function stopWorld(): Promise<void> {
  if (!current) return;
  const { mock, receiver, redis } = current;
  current = undefined;
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await mock.close();
  // The blocks' Redis clients (left open, as a server's would be) now log a reconnection error every few
  // hundred ms until the worker exits. A log that reaches vitest while it closes the worker's channel
  // fails the run ("Closing rpc while onUserConsoleLog was pending", seen in CI), and nothing a block
  // prints after the last test is read: the console goes quiet first.
  for (const method of ["log", "info", "warn", "error", "debug"] as const) console[method] = () => {};
  await redis.stop();
}
