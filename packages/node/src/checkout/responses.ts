// The answers of the status endpoint other than a stream (the protocol in docs/checkout.md).

const NO_STORE = { "cache-control": "no-store", vary: "Accept" } as const;

/** A JSON answer that no cache keeps (statuses change; a shared cache would mix shoppers). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE, ...headers },
  });
}

/**
 * The one answer for an unknown id, a malformed one, and a payin this shopper may not see: the same
 * status and body for all three, so a page cannot probe which ids exist.
 */
export function notFound(): Response {
  return json({ code: "NOT_FOUND", message: "No payment with this id is visible here." }, 404);
}

/** No `id` in the query, an empty one, or more than one. */
export function missingId(): Response {
  return json(
    { code: "INVALID_DATA", message: "The query must carry the payment's id, once: ?id=pi_…" },
    400,
  );
}

/** Anything but GET or HEAD. */
export function methodNotAllowed(): Response {
  return json({ code: "METHOD_NOT_ALLOWED", message: "Use GET." }, 405, { allow: "GET, HEAD" });
}

/** This instance holds its maximum of open streams (or is closing): come back after `retryAfterSeconds`. */
export function unavailable(retryAfterSeconds: number): Response {
  return json(
    { code: "TEMPORARY_UNAVAILABLE", message: "Too many open payment status streams here; retry shortly." },
    503,
    { "retry-after": String(retryAfterSeconds) },
  );
}

/** The payment service did not answer the status read. */
export function providerError(): Response {
  return json(
    { code: "PROVIDER_ERROR", message: "The payment's status could not be read; retry shortly." },
    502,
  );
}

/** The headers of a status stream (`X-Accel-Buffering: no` keeps nginx from holding events back). */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
} as const;

/** Without a body, for HEAD: the same status and headers. */
export function withoutBody(response: Response): Response {
  return new Response(null, { status: response.status, headers: response.headers });
}
