import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ApiError } from "../../domain/errors.js";
import type { MockEngine } from "../../http/engine.js";
import type { HostAllowList } from "../../http/host-guard.js";
import { errorResponse } from "../../http/messages.js";
import { nodeListener } from "./adapter.js";

/** A mock engine served over node:http. */
export interface ListeningMock {
  server: Server;
  /** `http://host:port` the mock listens at. */
  url: string;
  /** Stops accepting connections, ends open ones and the engine's timers. */
  close(): Promise<void>;
}

/**
 * Serves an engine on `host:port` (port 0 picks a free one). The URLs the mock hands out use
 * `publicUrl` when given (a mock behind a proxy or another name), else the listening address;
 * `/_mock/*` answers only the Host names `hosts` allows.
 */
export function listen(
  engine: MockEngine,
  port: number,
  host: string,
  publicUrl: string | undefined,
  hosts: HostAllowList,
): Promise<ListeningMock> {
  let base = publicUrl?.replace(/\/$/, "") ?? "";
  const server = createServer(nodeListener(engine, () => base, hosts));
  // An idle kept-alive connection is closed by the client first: undici (Node's fetch) drops its own after
  // 4 s, most other clients later. With Node's 5 s here a client reusing a socket in the instant the
  // server closed it got ECONNRESET, and a POST /payin cannot be retried safely
  // (docs/decisions/mock-idle-connections.md).
  server.keepAliveTimeout = 65_000;
  // must stay above keepAliveTimeout, or a slow first request on a reused socket is cut
  server.headersTimeout = 66_000;
  server.on("clientError", answerClientError);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      if (base === "") base = `http://${shownHost}:${address.port}`;
      let closing: Promise<void> | undefined;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close() {
          closing ??= new Promise<void>((done) => {
            engine.close();
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}

/**
 * Answers a request node:http could not parse (headers over 16 KiB, a malformed request line) with
 * the service's JSON error body instead of Node's empty one, then closes the connection.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "the request headers exceed the server's limit"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "the request was not received in time"]
        : [400, "Bad Request", "the request is not valid HTTP/1.1"];
  const { body } = errorResponse(new ApiError("INVALID_DATA", message, { status }));
  const text = String(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
