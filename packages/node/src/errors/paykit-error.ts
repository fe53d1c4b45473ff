import type { ErrorDetail } from "@paykit/contract";

/** `util.inspect` looks this symbol up on any object; using it keeps secrets out of console logs. */
export const INSPECT_CUSTOM = Symbol.for("nodejs.util.inspect.custom");

/** The JSON view every Paykit error gives to loggers: never a key, header or card number. */
export interface PaykitErrorJSON {
  name: string;
  code: string;
  message: string;
  retryable: boolean;
  details: ErrorDetail[];
  /** The id of the last request sent, when one was. */
  requestId: string | undefined;
  [key: string]: unknown;
}

/**
 * The base of every failure the Paykit client reports: API answers, transport failures and
 * requests refused before sending. Branch on `code` (or the subclass), never on `message`.
 */
export class PaykitError extends Error {
  override readonly name: string = "PaykitError";
  /** A stable machine-readable code. */
  readonly code: string;
  /** Whether trying the same call again later may succeed (the client already retried what was safe). */
  readonly retryable: boolean;
  /** Failing fields, in the service's `details` shape (empty when not about fields). */
  readonly details: ErrorDetail[];
  /**
   * The client-made id (`req_…`) of the last request the call sent, the one this error is about: quote it
   * in a support ticket and search your logs for it (hooks and spans carry it too). Undefined when
   * nothing was sent (a `PaykitValidationError`, a `PaykitConfigError`, a call aborted before its first
   * attempt).
   */
  readonly requestId: string | undefined;

  constructor(
    message: string,
    init: {
      code: string;
      retryable: boolean;
      details?: ErrorDetail[];
      cause?: unknown;
      requestId?: string | undefined;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.retryable = init.retryable;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
  }

  /** A log-safe JSON view. */
  toJSON(): PaykitErrorJSON {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
      requestId: this.requestId,
    };
  }

  /** A log-safe view for `console.log`/`util.inspect`: the JSON view and the stack, nothing else. */
  [INSPECT_CUSTOM](): string {
    const json = this.toJSON();
    const { name: _name, message: _message, ...rest } = json;
    const stack = (this.stack ?? "").split("\n").slice(1).join("\n");
    return `${this.name}: ${this.message}\n${stack}\n${JSON.stringify(rest, null, 2)}`;
  }
}
