import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { MockEngine } from "../engine/engine.js";
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
 * `publicUrl` when given (a mock behind a proxy or another name), else the listening address.
 */
export function listen(
  engine: MockEngine,
  port: number,
  host: string,
  publicUrl?: string,
): Promise<ListeningMock> {
  let base = publicUrl?.replace(/\/$/, "") ?? "";
  const server = createServer(nodeListener(engine, () => base));
  server.keepAliveTimeout = 5_000;
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
