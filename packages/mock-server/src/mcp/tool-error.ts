// A tool call refused, by the mock or by the server's own rules: the server answers it as a tool
// result with `isError: true` carrying the code and message (server.ts).
import type { ErrorDetail } from "@paykit/contract";

/** A tool call refused: by the mock (its status and error body) or by this server's own rules. */
export class ToolError extends Error {
  override readonly name = "ToolError";
  /** The service's error code (`NOT_FOUND`, `INVALID_DATA`…) or this server's (`LIVE_KEY_REFUSED`…). */
  readonly code: string;
  /** The mock's HTTP status, when the mock refused. */
  readonly status: number | undefined;
  /** Failing fields, when any. */
  readonly details: ErrorDetail[] | undefined;

  constructor(code: string, message: string, options: { status?: number; details?: ErrorDetail[] } = {}) {
    super(message);
    this.code = code;
    this.status = options.status;
    this.details = options.details;
  }
}
