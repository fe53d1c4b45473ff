import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../../domain/errors.js";
import type { MockEngine } from "../../http/engine.js";
import type { HostAllowList } from "../../http/host-guard.js";
import { type EngineResponse, errorResponse, MAX_BODY_BYTES } from "../../http/messages.js";

/**
 * A node:http request listener over a mock engine. It reads the body while streaming and answers 413
 * as soon as it passes 1 MiB (then discards the rest, within bounds, see {@link refuse}), builds the engine's request without a web `Request` (the fast path
 * measured in bench/run.mjs), and cuts the socket after the handler ran for `dropResponse` faults.
 * `/_mock/*` (control API, dashboard, customer pages) answers only the Host names `hosts` allows (403
 * `FORBIDDEN_HOST`, against DNS rebinding); the merchant API needs the account's keys and is not checked.
 */
export function nodeListener(
  engine: MockEngine,
  publicBase: () => string,
  hosts: HostAllowList,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > MAX_BODY_BYTES) {
      refuse(req, res, tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return; // refuse() counts and bounds what is discarded
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        refused = true;
        refuse(req, res, tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      if (refused) return;
      const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      if (total > 0 && !isUtf8(buffer)) {
        write(
          res,
          errorResponse(
            new ApiError("INVALID_DATA", "the request body is not valid UTF-8", {
              details: [{ path: "", message: "is not valid UTF-8" }],
            }),
          ),
        );
        return;
      }
      // The Host header is never trusted: a malformed one is refused, and the URLs the mock hands out
      // (3DS script, boleto, bank page) come from its listening address or --public-url, not from Host.
      if (hostOf(req.headers.host) === null) {
        write(
          res,
          errorResponse(
            new ApiError(
              "INVALID_DATA",
              "the Host header must be a host name or address with an optional port",
              {
                details: [{ path: "Host", message: "must be a host name or address with an optional port" }],
              },
            ),
          ),
        );
        return;
      }
      const raw = req.url ?? "/";
      const q = raw.indexOf("?");
      const headers = req.headers;
      const path = q === -1 ? raw : raw.slice(0, q);
      // Checked here, where the client's own Host is seen: the msw adapter and engine.handle have no
      // Host of their own.
      if ((path === "/_mock" || path.startsWith("/_mock/")) && !hosts.allows(headers.host)) {
        write(res, errorResponse(hosts.refusal(headers.host ?? "")));
        return;
      }
      engine
        .dispatch({
          method: (req.method ?? "GET").toUpperCase(),
          path,
          query: q === -1 ? "" : raw.slice(q + 1),
          base: publicBase(),
          header: (name) => {
            const value = headers[name];
            return Array.isArray(value) ? value.join(", ") : value;
          },
          body: total > 0 ? buffer.toString("utf8") : null,
          remoteAddress: req.socket.remoteAddress,
        })
        .then(
          (response) => {
            if (response.drop) {
              res.socket?.destroy();
              res.destroy();
            } else {
              write(res, response);
            }
          },
          () => res.destroy(),
        );
    });
  };
}

// The last Host found good: a client sends the same one on every request.
let lastHost: string | undefined;
// A name or IPv4 address, or a bracketed IPv6 address, then an optional port.
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/**
 * The Host header when it is well formed (`localhost` when absent, as HTTP/1.0 allows), else `null`:
 * `a b`, `[::1`, `host:99999` or an empty Host are refused with 400.
 */
function hostOf(header: string | undefined): string | null {
  if (header === undefined) return "localhost";
  if (header === lastHost) return header;
  const match = HOST.exec(header);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65_535)) return null;
  try {
    new URL(`http://${header}`);
  } catch {
    return null;
  }
  lastHost = header;
  return header;
}

function tooLarge(): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `the request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB)`);
}

/** Most bytes of an oversized body read and thrown away after its 413, and for how long. */
export const DISCARD_LIMIT = { bytes: 16 * 1024 * 1024, ms: 10_000 };

/**
 * Answers at once, then reads and throws away the rest of the body the client is still sending: cutting
 * the socket under an upload makes most HTTP clients (undici's fetch among them) report ECONNRESET
 * instead of the 413 (RFC 9112 section 9.6). `Connection: close` would not help: node:http closes the
 * socket as soon as such an answer is written, under the upload. So the connection stays open while the
 * rest arrives (and may carry the next request); a client that sends more than {@link DISCARD_LIMIT}
 * allows, or too slowly, is cut off.
 */
function refuse(req: IncomingMessage, res: ServerResponse, error: ApiError): void {
  write(res, errorResponse(error));
  let discarded = 0;
  const timer = setTimeout(() => req.destroy(), DISCARD_LIMIT.ms);
  timer.unref?.();
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT.bytes) req.destroy();
  });
  req.on("close", () => clearTimeout(timer));
  req.resume();
}

function write(res: ServerResponse, response: EngineResponse): void {
  if (res.headersSent) return;
  res.writeHead(response.status, response.headers);
  res.end(response.body ?? undefined);
}
