// How a client of the control API (the `trigger` and `mcp` commands) makes sure the URL it was given is
// a Paykit mock before it sends anything: aimed at the real service, a scenario or an agent's tool call
// would move real money. A mock answers `GET /_mock/openapi.json` with its control API's document.
import { CONTROL_API_TITLE } from "./openapi.js";

/** What answered at a URL: a Paykit mock, something else (what it answered, and a hint), or nothing. */
export type MockIdentity =
  | { kind: "mock" }
  | { kind: "other"; answer: string; hint: string | undefined }
  | { kind: "unreachable"; cause: string };

/** How long {@link identifyMock} waits for an answer, in ms: a mock answers at once. */
export const IDENTIFY_TIMEOUT_MS = 10_000;

/** Asks a URL whether it is a Paykit mock: `GET /_mock/openapi.json` answers the control API document. */
export async function identifyMock(url: string, doFetch: typeof fetch = fetch): Promise<MockIdentity> {
  let response: Response;
  try {
    response = await doFetch(`${url}/_mock/openapi.json`, {
      headers: { accept: "application/json" },
      redirect: "error",
      signal: AbortSignal.timeout(IDENTIFY_TIMEOUT_MS),
    });
  } catch (error) {
    // fetch's own error says only "fetch failed"; its cause says why (ECONNREFUSED, a bad port)
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    // a redirect is an answer, and not a mock's: fetch reports it as a failure
    if (/redirect/i.test(`${(error as Error)?.message} ${cause?.message}`))
      return { kind: "other", answer: "a redirect", hint: undefined };
    const why =
      (error as Error)?.name === "TimeoutError"
        ? `no answer within ${IDENTIFY_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error));
    return { kind: "unreachable", cause: why };
  }
  const text = await response.text().catch(() => "");
  let title: unknown;
  try {
    title = (JSON.parse(text) as { info?: { title?: unknown } })?.info?.title;
  } catch {
    title = undefined;
  }
  if (response.ok && title === CONTROL_API_TITLE) return { kind: "mock" };
  return {
    kind: "other",
    answer: response.ok ? "a document that is not the mock's" : `HTTP ${response.status}`,
    hint:
      response.status === 403 && text.includes("FORBIDDEN_HOST")
        ? "the mock does not answer this host name (start it with --allowed-hosts or --public-url)"
        : undefined,
  };
}
