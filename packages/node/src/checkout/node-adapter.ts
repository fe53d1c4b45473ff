// The one bridge from node:http (Express, Fastify, NestJS, a bare server) to a web-standard handler.
// Typed structurally, without importing node:http, so `@paykit/node/checkout` loads in Workers too.

/** The part of node:http's `IncomingMessage` (or Express's `req`) the adapter reads. */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express's full path when a router is mounted under a prefix. */
  originalUrl?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** The part of node:http's `ServerResponse` (or Express's `res`) the adapter writes. */
export interface NodeResponseLike {
  /** Whether the status line and headers went out already. */
  readonly headersSent: boolean;
  /** Whether `end()` was called. */
  readonly writableEnded: boolean;
  /** Sends the status and headers. */
  writeHead(status: number, headers: Record<string, string | string[]>): unknown;
  /** Sends the headers now (a stream's first event may come later). */
  flushHeaders?(): void;
  /** Sends a chunk of the body; `false` when the socket's buffer is full (wait for `drain`). */
  write(chunk: Uint8Array): boolean;
  /** Ends the answer. */
  end(): unknown;
  /** Cuts the connection (a handler that failed after the headers went out). */
  destroy(error?: Error): unknown;
  /** Listens for the connection closing or the buffer draining. */
  on(event: "close" | "drain", listener: () => void): unknown;
  /** Listens once for the connection closing or the buffer draining. */
  once(event: "close" | "drain", listener: () => void): unknown;
  /** Stops listening. */
  off(event: "close" | "drain", listener: () => void): unknown;
}

/** A node:http request listener; Express passes `next`, which gets the handler's error. */
export type NodeListener = (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next?: (error?: unknown) => void,
) => void;

function toRequest(req: NodeRequestLike, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // HTTP/2 pseudo-headers (`:path`) are not headers a Request may carry.
    if (value === undefined || name.startsWith(":")) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const path = req.originalUrl ?? req.url ?? "/";
  let url: URL;
  try {
    url = new URL(path, `http://${headers.get("host") ?? "localhost"}`);
  } catch {
    url = new URL(path, "http://localhost");
  }
  // The status handler reads the query and headers only: a request body is not forwarded.
  return new Request(url, { method: req.method ?? "GET", headers, signal });
}

// Methods node:http accepts but the fetch standard forbids in a `Request` (new Request throws on them).
const UNREPRESENTABLE_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** The answer to a request no web-standard `Request` can carry: the handler never sees it. */
function refuse(res: NodeResponseLike, method: string): void {
  const status = UNREPRESENTABLE_METHODS.has(method) ? 501 : 400;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end();
}

function responseHeaders(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  return headers;
}

async function pipe(
  body: ReadableStream<Uint8Array>,
  res: NodeResponseLike,
  closed: () => boolean,
): Promise<void> {
  const reader = body.getReader();
  // The page went away: cancelling the reader ends the stream, which frees its slot and timers.
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.on("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed()) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.once("drain", go);
          res.once("close", go);
        });
      }
    }
  } finally {
    res.off("close", onClose);
  }
}

/**
 * Mounts a web-standard handler (such as `createPaymentStatus(...).handler`) on node:http, Express,
 * Fastify (`reply.hijack()` then `request.raw`, `reply.raw`) or NestJS: the request becomes a `Request`
 * whose `signal` aborts when the client disconnects, and the `Response` is streamed as it comes, so
 * server-sent events flow and end when either side leaves. A request no `Request` can carry is
 * answered here without the handler: `501` to TRACE (and CONNECT, TRACK), `400` to a URL that cannot
 * be parsed.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toNodeListener } from "@paykit/node/checkout";
 *
 * createServer(toNodeListener(paymentStatus.handler)).listen(3000);
 * app.get("/payment-status", toNodeListener(paymentStatus.handler)); // Express
 * ```
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>): NodeListener {
  return (req, res, next) => {
    const controller = new AbortController();
    let closed = false;
    res.once("close", () => {
      closed = true;
      // A close before the answer was complete is the client leaving.
      if (!res.writableEnded) controller.abort();
    });
    void (async () => {
      let request: Request;
      try {
        request = toRequest(req, controller.signal);
      } catch {
        // TRACE, or a URL nothing can parse: not the handler's to answer, and no reason for a 500.
        refuse(res, (req.method ?? "").toUpperCase());
        return;
      }
      const response = await handler(request);
      if (closed) {
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      res.writeHead(response.status, responseHeaders(response));
      if (!response.body || req.method?.toUpperCase() === "HEAD") {
        await response.body?.cancel().catch(() => undefined);
        res.end();
        return;
      }
      res.flushHeaders?.(); // a stream's headers go now, not with its first event
      await pipe(response.body, res, () => closed);
      if (!closed) res.end();
    })().catch((error: unknown) => {
      if (next) return next(error);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end();
      } else res.destroy(error instanceof Error ? error : undefined);
    });
  };
}
