/**
 * Whether a failed fetch certainly never reached the service. Only then is a POST /payin safe to
 * send again (docs/errors-and-retries.md, "The money-safe retry policy"). Node's fetch reports the socket error in `cause.code`
 * (sometimes inside an AggregateError when several addresses were tried); other runtimes give no
 * code, which counts as "maybe sent".
 */
export type NetworkFailure = {
  code: "CONNECTION_REFUSED" | "DNS_FAILURE" | "CONNECTION_RESET" | "NETWORK_ERROR";
  sent: "no" | "maybe";
};

const NOT_SENT: Record<string, "CONNECTION_REFUSED" | "DNS_FAILURE"> = {
  ECONNREFUSED: "CONNECTION_REFUSED",
  ENOTFOUND: "DNS_FAILURE",
  EAI_AGAIN: "DNS_FAILURE",
  EAI_NONAME: "DNS_FAILURE",
  // The TCP handshake itself timed out: no byte of the request left the machine.
  UND_ERR_CONNECT_TIMEOUT: "CONNECTION_REFUSED",
};

const RESET = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);

function codesOf(error: unknown, depth = 0): string[] {
  if (typeof error !== "object" || error === null || depth > 4) return [];
  const out: string[] = [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string") out.push(code);
  if (Array.isArray(errors)) for (const inner of errors) out.push(...codesOf(inner, depth + 1));
  if (cause !== undefined) out.push(...codesOf(cause, depth + 1));
  return out;
}

/** Classifies the error a fetch rejected with. */
export function classifyNetworkError(error: unknown): NetworkFailure {
  const codes = codesOf(error);
  // Every code must say "not sent": one reset among them means the request may have gone out.
  if (codes.length > 0 && codes.every((code) => code in NOT_SENT)) {
    return { code: NOT_SENT[codes[0] as string] as "CONNECTION_REFUSED" | "DNS_FAILURE", sent: "no" };
  }
  if (codes.some((code) => RESET.has(code))) return { code: "CONNECTION_RESET", sent: "maybe" };
  return { code: "NETWORK_ERROR", sent: "maybe" };
}
