import { ERROR_STATUS, isKnownErrorCode } from "@paykit/contract";
import { ApiError } from "./errors.js";

/** A fault to inject into the next matching requests (docs/decisions/faults.md). */
export interface FaultParams {
  /** HTTP method to match. @default any */
  method?: string;
  /** Path to match exactly (query ignored); a trailing `*` matches a prefix. */
  path: string;
  /** Answer this error status without running the handler. */
  status?: number;
  /** Error code of that answer. @default by status: INTERNAL_ERROR for 5xx, the decided code otherwise */
  code?: string;
  /** How many matching requests it applies to. @default 1 */
  times?: number;
  /** Delay before answering, in ms; alone, the handler runs after it. */
  latencyMs?: number;
  /** Run the handler (its effect is kept), then cut the connection without an answer. */
  dropResponse?: boolean;
  /**
   * Only requests authenticated as this account match: parallel test runs sharing one mock each
   * inject their own faults without touching the others' requests. @default every request
   */
  accountId?: string;
}

/** A fault as stored, with its id and the uses left. */
export interface Fault extends FaultParams {
  id: string;
  times: number;
}

/** What a matched fault asks the engine to do. */
export interface FaultAction {
  latencyMs: number;
  error: ApiError | null;
  drop: boolean;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: "INVALID_DATA",
  401: "UNAUTHORIZED",
  403: "KYC_NOT_APPROVED",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

/** Most faults armed at once: each request scans them, so their number is bounded. */
export const MAX_FAULTS = 1000;

/** The injected faults, matched in the order they were added. */
export class Faults {
  #faults: Fault[] = [];
  #seq = 0;
  /** How many armed faults name an account: only then does a request's account need resolving. */

  add(params: FaultParams): Fault {
    if (this.#faults.length >= MAX_FAULTS) {
      throw new ApiError("INVALID_DATA", `at most ${MAX_FAULTS} faults may be armed; clear them first`, {
        details: [{ path: "", message: `at most ${MAX_FAULTS} faults may be armed` }],
      });
    }
    const fault: Fault = { ...params, id: `flt_${++this.#seq}`, times: params.times ?? 1 };
    if (fault.method) fault.method = fault.method.toUpperCase();
    this.#faults.push(fault);
    return { ...fault };
  }

  /** The armed faults; with `accountId`, only those naming that account. */
  list(accountId?: string): Fault[] {
    return this.#faults
      .filter((f) => accountId === undefined || f.accountId === accountId)
      .map((f) => ({ ...f }));
  }

  /** Removes every fault; with `accountId`, only those naming that account. */
  clear(accountId?: string): void {
    this.#faults = accountId === undefined ? [] : this.#faults.filter((f) => f.accountId !== accountId);
  }

  /**
   * Takes one use of the first armed fault that matches a request (one of its account's, or one for
   * every account), and answers what it does; null when none matches.
   */
  take(method: string, path: string, accountId: string | null): FaultAction | null {
    if (this.#faults.length === 0) return null;
    const index = this.#faults.findIndex(
      (f) => faultMatches(f, method, path) && (f.accountId === undefined || f.accountId === accountId),
    );
    if (index === -1) return null;
    const fault = this.#faults[index]!;
    fault.times -= 1;
    if (fault.times <= 0) {
      this.#faults.splice(index, 1);
    }
    return faultAction(fault);
  }
}

/** Whether an armed fault applies to a request's method and path (a trailing `*` matches a prefix). */
export function faultMatches(fault: Pick<Fault, "method" | "path">, method: string, path: string): boolean {
  if (fault.method && fault.method !== method) return false;
  if (fault.path.endsWith("*")) return path.startsWith(fault.path.slice(0, -1));
  return fault.path === path;
}

/** What an armed fault does to the request it matched. */
export function faultAction(fault: Fault): FaultAction {
  return {
    latencyMs: fault.latencyMs ?? 0,
    error: fault.status !== undefined ? faultError(fault.status, fault.code) : null,
    drop: fault.dropResponse === true && fault.status === undefined,
  };
}

function faultError(status: number, code: string | undefined): ApiError {
  const chosen = code ?? CODE_BY_STATUS[status] ?? (status >= 500 ? "INTERNAL_ERROR" : "INVALID_DATA");
  const headers = status === 429 ? { "retry-after": "1" } : undefined;
  const matchesStatus = isKnownErrorCode(chosen) && ERROR_STATUS[chosen] === status;
  return new ApiError(chosen, `injected fault: ${matchesStatus ? chosen : `${status} ${chosen}`}`, {
    status,
    headers,
  });
}

/** A fixed-window request limit per credential (off unless switched on through the control API). */
export interface RateLimitParams {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in ms. @default 1000 */
  windowMs?: number;
}

/** Counts API requests per credential and refuses the excess with 429 RATE_LIMITED and Retry-After. */
export class RateLimiter {
  #params: Required<RateLimitParams> | null = null;
  // Keyed by account id, or by client address for requests without valid credentials, so its size is
  // bounded by accounts and clients, never by what a client puts in a header; swept when it grows.
  #windows = new Map<string, { start: number; count: number }>();

  set(params: RateLimitParams | null): void {
    this.#params = params ? { limit: params.limit, windowMs: params.windowMs ?? 1000 } : null;
    this.#windows.clear();
  }

  /**
   * Follows the sandbox's setting (which any process of a shared sandbox may change): the windows
   * start over only when it changed. Each process counts its own requests.
   */
  configure(params: RateLimitParams | null): void {
    const current = this.#params;
    const windowMs = params?.windowMs ?? 1000;
    if (
      current === null
        ? params === null
        : params !== null && current.limit === params.limit && current.windowMs === windowMs
    )
      return;
    this.set(params);
  }

  /** Whether a limit is set (no check, and no clock read, per request otherwise). */
  get active(): boolean {
    return this.#params !== null;
  }

  get(): RateLimitParams | null {
    return this.#params ? { ...this.#params } : null;
  }

  /** Throws RATE_LIMITED when `key` (an account, or an unauthenticated client) has spent its window. */
  check(key: string, nowMs: number): void {
    const params = this.#params;
    if (params === null) return;
    let window = this.#windows.get(key);
    if (!window || nowMs - window.start >= params.windowMs) {
      if (window === undefined && this.#windows.size >= MAX_RATE_WINDOWS) this.#sweep(nowMs, params.windowMs);
      window = { start: nowMs, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (window.count > params.limit) {
      const retryAfter = Math.max(1, Math.ceil((window.start + params.windowMs - nowMs) / 1000));
      throw new ApiError(
        "RATE_LIMITED",
        `too many requests: at most ${params.limit} per ${params.windowMs} ms`,
        {
          headers: { "retry-after": String(retryAfter) },
        },
      );
    }
  }

  /** Number of windows kept (bounded). */
  get size(): number {
    return this.#windows.size;
  }

  // Drops finished windows; if every window is live (a flood of client addresses), the oldest go.
  #sweep(nowMs: number, windowMs: number): void {
    for (const [key, window] of this.#windows)
      if (nowMs - window.start >= windowMs) this.#windows.delete(key);
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < MAX_RATE_WINDOWS) break;
      this.#windows.delete(key);
    }
  }
}

/** Most rate-limit windows kept at once. */
const MAX_RATE_WINDOWS = 10_000;
