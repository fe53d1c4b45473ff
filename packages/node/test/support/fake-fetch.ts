/** One scripted outcome of a fetch call: an answer, a rejection, or a hang until aborted. */
export type Step =
  | { status: number; body?: unknown; raw?: string; headers?: Record<string, string> }
  | { reject: unknown }
  | { hang: true };

/** A request the fake fetch saw. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

/** The error Node's fetch rejects with when a socket error `code` occurs. */
export function fetchFailed(code?: string): TypeError {
  const cause = code ? Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code }) : undefined;
  return new TypeError("fetch failed", cause ? { cause } : undefined);
}

/**
 * A fetch that answers from a script, keyed by "METHOD /path" (query ignored), in order.
 * Records every request it sees.
 */
export function scriptedFetch(script: Record<string, Step[]>) {
  const seen: SeenRequest[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.method === "GET" ? null : await request.text();
    seen.push({ method: request.method, url: request.url, headers: request.headers, body });
    const key = `${request.method} ${url.pathname}`;
    const step = script[key]?.shift();
    if (!step) throw new Error(`fake fetch: no scripted answer left for ${key}`);
    if ("reject" in step) throw step.reject;
    if ("hang" in step) {
      return new Promise((_resolve, reject) => {
        // The caller's own signal, not the copy's: a Request's signal follows the one it was made with
        // only while undici's weak link holds, and after a garbage collection on a busy machine the
        // hang never ended (a CI run timed out at 30 s).
        const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () =>
          reject(signal.reason ?? new DOMException("aborted", "AbortError")),
        );
      });
    }
    const text = step.raw ?? (step.body === undefined ? "" : JSON.stringify(step.body));
    return new Response(text, {
      status: step.status,
      headers: { "content-type": step.raw ? "text/html" : "application/json", ...step.headers },
    });
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    seen,
    count: (key: string) => seen.filter((r) => `${r.method} ${new URL(r.url).pathname}` === key).length,
  };
}
