import { ApiError } from "../domain/errors.js";
import { type EngineRequest, isJsonContentType } from "./messages.js";

// The mock's own surface (control API, customer pages) must not be driven by another web page
// (issue 10): a page on another origin can send a form POST, or a no-cors fetch with a Blob body,
// without any preflight. A browser always says where such a request comes from (Origin,
// Sec-Fetch-Site); curl, test clients and the SDK's `control` send neither.

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The origins the mock answers as itself: its base URL's origin, and, when that is a loopback
 * address, the other loopback names on the same port (a browser may open `localhost` for `127.0.0.1`).
 */
export function ownOrigins(base: string): Set<string> {
  const origins = new Set<string>();
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return origins;
  }
  origins.add(url.origin);
  if (LOOPBACK_HOSTS.has(url.hostname)) {
    for (const host of LOOPBACK_HOSTS)
      origins.add(`${url.protocol}//${host}${url.port ? `:${url.port}` : ""}`);
  }
  return origins;
}

/** Whether the request says it comes from a page of another origin. */
export function isCrossOrigin(req: EngineRequest): boolean {
  const site = req.header("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return true;
  const origin = req.header("origin");
  return origin !== undefined && !ownOrigins(req.base).has(origin);
}

/**
 * Refuses a state-changing control call from another origin (403), and a body that is not JSON (415):
 * only `application/json` forces a browser to preflight, and the mock grants no preflight to other
 * origins. Body-less calls without `Origin` (curl, test clients) pass.
 */
export function guardControlCall(req: EngineRequest): void {
  if (req.method === "GET" || req.method === "HEAD") return;
  if (isCrossOrigin(req)) {
    throw new ApiError(
      "FORBIDDEN_ORIGIN",
      "control calls are refused from another origin: only the mock's own pages and non-browser clients may change its state",
      { status: 403 },
    );
  }
  if (req.body !== null && req.body.length > 0 && !isJsonContentType(req.header("content-type"))) {
    throw new ApiError(
      "UNSUPPORTED_MEDIA_TYPE",
      "a control call with a body must be Content-Type: application/json",
    );
  }
}
