// One instance of the payment-status endpoint over real node:http (toNodeListener), on the real mock
// over HTTP, with a shopper session per `x-shopper` header; and a raw reader of its event streams.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { createPaymentStatus, type PaymentStatusOptions, toNodeListener } from "../../src/checkout/index.js";
import type { Paykit } from "../../src/index.js";
import { type StartedMock, startMock } from "../support/mock.js";

/** A running endpoint; disposed with `await using`. */
export interface Endpoint {
  api: StartedMock;
  paykit: Paykit;
  status: ReturnType<typeof createPaymentStatus>;
  /** `http://127.0.0.1:<port>/payment-status?id=<id>` */
  urlOf(id: string): string;
  /** Lets the shopper `maria` (header `x-shopper: maria`) see `id`. */
  allow(id: string): void;
  /** When each GET /payin/{id} left the client. */
  reads: number[];
  /** When each GET /payin/{id} was answered. */
  answers: number[];
  /** Every webhook delivery the mock made, as received. */
  deliveries: Array<{ body: string; headers: Record<string, string> }>;
  /** The `Last-Event-ID` header of every request that reached the handler (null: none). */
  lastEventIds: Array<string | null>;
  server: Server;
  [Symbol.asyncDispose](): Promise<void>;
}

export const SHOPPER = { "x-shopper": "maria" } as const;

export async function startEndpoint(options: Partial<PaymentStatusOptions> = {}): Promise<Endpoint> {
  const deliveries: Endpoint["deliveries"] = [];
  const api = await startMock("http", {
    fetch: async (_url, init) => {
      deliveries.push({ body: String(init.body), headers: { ...(init.headers as Record<string, string>) } });
      return new Response(null, { status: 204 });
    },
  });
  const secret = generateWebhookSecret();
  const keys = await api.control.createAccount({ webhookSecret: secret });
  const reads: number[] = [];
  const answers: number[] = [];
  const isRead = (event: { method: string; path: string }) =>
    event.method === "GET" && event.path.startsWith("payin/");
  const paykit = api.client({
    publicKey: keys.publicKey,
    secretKey: keys.secretKey,
    webhookSecret: secret,
    maxRetries: 0,
    hooks: {
      onRequest: (event) => void (isRead(event) && reads.push(Date.now())),
      onResponse: (event) => void (isRead(event) && answers.push(Date.now())),
    },
  });
  const sessions = new Map<string, Set<string>>([["maria", new Set()]]);
  const status = createPaymentStatus({
    paykit,
    authorize: (request, payinId) =>
      sessions.get(request.headers.get("x-shopper") ?? "")?.has(payinId) ?? false,
    pollIntervalMs: 50,
    maxPollIntervalMs: 50,
    retryMs: 300,
    ...options,
  });
  const lastEventIds: Array<string | null> = [];
  const listener = toNodeListener(async (request) => {
    lastEventIds.push(request.headers.get("last-event-id"));
    return status.handler(request);
  });
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    api,
    paykit,
    status,
    urlOf: (id) => `http://127.0.0.1:${port}/payment-status?id=${encodeURIComponent(id)}`,
    allow: (id) => void sessions.get("maria")?.add(id),
    reads,
    answers,
    deliveries,
    lastEventIds,
    server,
    async [Symbol.asyncDispose]() {
      await status.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api[Symbol.asyncDispose]();
    },
  };
}

/** Waits until `condition` holds (generous deadline: a loaded CI machine). */
export async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Calls `read` until `check` accepts what it returns (generous deadline), and returns that. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A stream read byte for byte: everything received so far, and whether the server ended it. */
export interface RawStream {
  response: Response;
  text: () => string;
  ended: () => boolean;
  /** The `data:` of every event so far, parsed. */
  events: () => Array<Record<string, unknown>>;
  /** Disconnects, as a closed tab does. */
  abort: () => void;
}

export async function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: "text/event-stream", ...SHOPPER, ...headers },
    signal: controller.signal,
  });
  let text = "";
  let ended = false;
  if (response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += value;
        }
        ended = true;
      } catch {
        // aborted by the test
      }
    })();
  } else ended = true;
  return {
    response,
    text: () => text,
    ended: () => ended,
    events: () =>
      text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>),
    abort: () => controller.abort(),
  };
}
