import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A web-standard request handler: the backend's whole surface. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** A running HTTP server. */
export interface RunningServer {
  /** Where it listens, e.g. `http://127.0.0.1:5173` (no trailing slash). */
  url: string;
  /** Stops accepting requests and ends open connections (SSE streams included). */
  close(): Promise<void>;
}

/**
 * Largest request body the backend reads, in bytes: the service's own limit,
 * docs/decisions/error-body.md.
 */
const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  if (req.method === "GET" || req.method === "HEAD") return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("request body over 1 MiB");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function toRequest(req: IncomingMessage, body: Buffer | null, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(req.url ?? "/", origin), {
    method: req.method ?? "GET",
    headers,
    body: body && body.length > 0 ? new Uint8Array(body) : null,
    signal,
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  // Streamed chunk by chunk so server-sent events reach the page as they are written; a page that
  // goes away cancels its stream (and aborts its request's signal), which frees its slot.
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    res.write(value);
  }
  res.end();
}

/**
 * Serves a web-standard handler over node:http on loopback. The backend is written against
 * `Request`/`Response` (web standards at every seam: docs/decisions/how-the-code-is-shaped.md); this is
 * its only node:http file.
 */
export async function serve(
  handler: FetchHandler,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  let origin = "";
  const server = createServer((req, res) => {
    // Aborted when the answer is done or the client left: a handler waiting on it stops.
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    readBody(req)
      .then((body) => handler(toRequest(req, body, origin, gone.signal)))
      .then((response) => writeResponse(res, response))
      .catch((error: unknown) => {
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader("content-type", "application/json");
          res.end(
            JSON.stringify({ code: "INTERNAL_ERROR", message: String((error as Error)?.message ?? error) }),
          );
        } else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${host}:${port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
