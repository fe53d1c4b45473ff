import { ApiError } from "../domain/errors.js";
import { type EngineRequest, type EngineResponse, errorResponse, MAX_BODY_BYTES } from "./messages.js";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a web `Request` into an {@link EngineRequest}, stopping at the 1 MiB body limit while
 * streaming (413 PAYLOAD_TOO_LARGE) rather than buffering an oversized body.
 *
 * @param base - The base URL the request addressed (origin plus any path prefix); its path is stripped.
 */
export async function readWebRequest(request: Request, base?: string): Promise<EngineRequest> {
  const url = new URL(request.url);
  const prefix = base ? new URL(base).pathname.replace(/\/$/, "") : "";
  const path =
    prefix && url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || "/" : url.pathname;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) {
    await discard(request.body);
    throw tooLarge();
  }
  let body: string | null = null;
  if (request.body) {
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY_BYTES) {
        reader.releaseLock();
        await discard(request.body);
        throw tooLarge();
      }
      chunks.push(value);
    }
    if (total > 0) {
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      try {
        body = decoder.decode(bytes);
      } catch {
        throw new ApiError("INVALID_DATA", "the request body is not valid UTF-8", {
          details: [{ path: "", message: "is not valid UTF-8" }],
        });
      }
    }
  }
  return {
    method: request.method.toUpperCase(),
    path,
    query: url.search.slice(1),
    base: (base ?? url.origin).replace(/\/$/, ""),
    header: (name) => request.headers.get(name) ?? undefined,
    body,
  };
}

/**
 * Reads the rest of an oversized body without keeping it: msw's interceptor waits for the request
 * body to be consumed before it delivers the answer, so a cancelled stream would hang the caller.
 */
async function discard(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) if ((await reader.read()).done) return;
  } catch {
    // The client went away; nothing left to read.
  }
}

/** The 413 answer of a body over 1 MiB. */
export function tooLarge(): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `the request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB)`);
}

/** A web `Response` of an engine answer; a dropped response becomes a network error (`Response.error()`). */
export function toWebResponse(response: EngineResponse): Response {
  if (response.drop) return Response.error();
  const body = response.status === 204 || response.status === 304 ? null : response.body;
  return new Response(body as BodyInit | null, { status: response.status, headers: response.headers });
}

/** A web `Response` of an error. */
export function errorWebResponse(error: ApiError): Response {
  return toWebResponse(errorResponse(error));
}

/**
 * Answers a web `Request` through an engine's `dispatch` (a body it cannot read is answered as the service
 * would; a dropped response is a network error).
 *
 * @param base - The base URL the request addressed when the mock is served under a path prefix (msw's
 * `baseUrl`); the request's origin by default.
 */
export async function handleWebRequest(
  request: Request,
  dispatch: (req: EngineRequest) => Promise<EngineResponse>,
  base?: string,
): Promise<Response> {
  let req: EngineRequest;
  try {
    req = await readWebRequest(request, base);
  } catch (error) {
    if (error instanceof ApiError) return errorWebResponse(error);
    throw error;
  }
  return toWebResponse(await dispatch(req));
}
