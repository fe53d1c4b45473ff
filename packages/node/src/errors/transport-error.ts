import { PaykitError, type PaykitErrorJSON } from "./paykit-error.js";

/**
 * Why a request got no answer. `CONNECTION_REFUSED` and `DNS_FAILURE` mean it never reached the
 * service; `CONNECTION_RESET` and `NETWORK_ERROR` mean it may have; `ABORTED` means the caller's
 * `signal` stopped it.
 */
export type ConnectionErrorCode =
  | "CONNECTION_REFUSED"
  | "DNS_FAILURE"
  | "CONNECTION_RESET"
  | "NETWORK_ERROR"
  | "ABORTED";

/**
 * The request got no answer from the service (refused, DNS, reset, aborted). `cause` holds the
 * runtime's own error. For a POST whose outcome is unknown, the message says how to find out.
 */
export class PaykitConnectionError extends PaykitError {
  override readonly name = "PaykitConnectionError";
  declare readonly code: ConnectionErrorCode;
  /** Method and path of the call, e.g. `POST /payout`. */
  readonly request: string;

  constructor(
    code: ConnectionErrorCode,
    request: string,
    message: string,
    cause?: unknown,
    requestId?: string | undefined,
  ) {
    super(message, { code, retryable: code !== "ABORTED", cause, requestId });
    this.request = request;
  }

  override toJSON(): PaykitErrorJSON {
    const cause = this.cause as { name?: unknown; message?: unknown } | undefined;
    return {
      ...super.toJSON(),
      request: this.request,
      cause: cause ? { name: cause.name, message: cause.message, code: socketCode(cause) } : undefined,
    };
  }
}

/** No answer arrived within `timeoutMs`; for a POST the payment may or may not exist. */
export class PaykitTimeoutError extends PaykitError {
  override readonly name = "PaykitTimeoutError";
  declare readonly code: "TIMEOUT";
  /** Method and path of the call, e.g. `GET /payin/pi_…`. */
  readonly request: string;
  /** The per-attempt time limit that ran out, in ms. */
  readonly timeoutMs: number;

  constructor(request: string, timeoutMs: number, message: string, requestId?: string | undefined) {
    super(message, { code: "TIMEOUT", retryable: true, requestId });
    this.request = request;
    this.timeoutMs = timeoutMs;
  }

  override toJSON(): PaykitErrorJSON {
    return { ...super.toJSON(), request: this.request, timeoutMs: this.timeoutMs };
  }
}

/**
 * What the runtime said about a failed request, for the error's message: the messages down the
 * `cause` chain and the socket code, e.g. `fetch failed: other side closed (UND_ERR_SOCKET)`.
 */
export function causeText(error: unknown): string {
  const messages: string[] = [];
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (typeof current !== "object") {
      messages.push(String(current));
      break;
    }
    const { message, errors, cause } = current as { message?: unknown; errors?: unknown; cause?: unknown };
    if (typeof message === "string" && message !== "" && !messages.includes(message)) messages.push(message);
    // An AggregateError (every address tried) says more in its first error than in itself.
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  const code = socketCode(error);
  const text = messages.join(": ") || "no reason given";
  const described = code === undefined || text.includes(code) ? text : `${text} (${code})`;
  return described.length > 300 ? `${described.slice(0, 299)}…` : described;
}

/** The runtime's socket error code (`ECONNRESET`, …), which Node nests in `cause`. */
function socketCode(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    typeof current === "object" && current !== null && depth < 5;
    depth++
  ) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === "string") return code;
    current = cause;
  }
  return undefined;
}
