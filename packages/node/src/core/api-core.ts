import type { ErrorDetail, issuesToDetails, Payout } from "@paykit/contract";
import { PaykitApiError, UNKNOWN_ERROR } from "../errors/api-error.js";
import { apiErrorFromResponse } from "../errors/from-response.js";
import type { PaykitError } from "../errors/paykit-error.js";
import { PaykitConnectionError, PaykitTimeoutError } from "../errors/transport-error.js";
import type { RequestOptions, ResolvedConfig } from "./config.js";
import { loadContract, loadedContract } from "./contract.js";
import { callHook } from "./hooks.js";
import { queryString } from "./path.js";
import {
  type AttemptFailure,
  decideRetry,
  nextDelay,
  parseRetryAfter,
  type RetryClass,
} from "./retry-policy.js";
import { sleep } from "./sleep.js";
import { type AttemptEnd, NO_OPERATION, type Operation } from "./telemetry.js";
import type { AttemptResult, Transport } from "./transport.js";

/** The part of a zod schema the core needs: the contract's response schemas. */
export interface ResponseSchema<T> {
  safeParse(
    input: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: Parameters<typeof issuesToDetails>[0] } };
}

/** What every call names for tracing: its route template and the SDK call it belongs to. */
export interface TracedSpec {
  /** The route with its parameters named, e.g. `/payin/{id}` (OpenTelemetry's `url.template`). */
  template: string;
  /** The SDK call's operation (a span when OpenTelemetry is registered). */
  operation?: Operation | undefined;
}

/** A GET: retried freely (DESIGN.md section 5). */
export interface GetSpec<T> extends RequestOptions, TracedSpec {
  query?: Readonly<Record<string, string | number | undefined>>;
  schema: ResponseSchema<T>;
}

/** A POST that creates money movement: retried only as its class allows. */
export interface PostSpec<T> extends RequestOptions, TracedSpec {
  body: unknown;
  schema: ResponseSchema<T>;
  retry: Exclude<RetryClass, "read">;
  /** The payout's referenceId, looked up after an ambiguous failure (create-payout only). */
  referenceId?: string;
}

interface Call<T> extends RequestOptions, TracedSpec {
  method: "GET" | "POST";
  path: string;
  body: string | undefined;
  schema: ResponseSchema<T>;
  retryClass: RetryClass;
  referenceId: string | undefined;
}

type LookupOutcome = { found: Payout } | { found: null } | { failed: true };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(failure: AttemptFailure): string {
  switch (failure.kind) {
    case "status":
      return `status ${failure.status}`;
    case "network":
      return failure.sent === "no" ? "network (not sent)" : "network";
    default:
      return failure.kind;
  }
}

/**
 * The request engine every resource method goes through: builds the URL, sends attempts, parses
 * answers leniently with the contract, maps errors, and applies the money-safe retry policy.
 */
export class ApiCore {
  readonly #config: ResolvedConfig;
  readonly #transport: Transport;

  constructor(config: ResolvedConfig, transport: Transport) {
    this.#config = config;
    this.#transport = transport;
  }

  /** GET `path` (relative to baseUrl), parsed with `schema`. */
  get<T>(path: string, spec: GetSpec<T>): Promise<T> {
    return this.#run({
      ...spec,
      method: "GET",
      path: path + queryString(spec.query),
      body: undefined,
      retryClass: "read",
      referenceId: undefined,
    });
  }

  /** POST `body` as JSON to `path`, parsed with `schema`. */
  post<T>(path: string, spec: PostSpec<T>): Promise<T> {
    return this.#run({
      ...spec,
      method: "POST",
      path,
      body: JSON.stringify(spec.body),
      retryClass: spec.retry,
      referenceId: spec.referenceId,
    });
  }

  /** The newest payout with this referenceId, or null. */
  async findPayout(
    referenceId: string,
    options?: RequestOptions & { operation?: Operation | undefined },
  ): Promise<Payout | null> {
    const { PayoutList } = await loadContract();
    const page = await this.get("payout", {
      ...options,
      query: { referenceId, limit: 1 },
      schema: PayoutList,
      template: "/payout",
    });
    const first = page.data[0];
    return first !== undefined && first.referenceId === referenceId ? first : null;
  }

  async #run<T>(call: Call<T>): Promise<T> {
    const config = this.#config;
    const { hooks } = config;
    const maxRetries = call.maxRetries ?? config.maxRetries;
    const timeoutMs = call.timeoutMs ?? config.timeoutMs;
    const url = config.baseUrl + call.path;
    const routeEnd = call.path.indexOf("?");
    const request = `${call.method} /${routeEnd < 0 ? call.path : call.path.slice(0, routeEnd)}`;
    let retries = 0;
    let ambiguous = false;
    // Whether an earlier attempt timed out or was cut: the service may still be processing it.
    let lostAttempt = false;
    const operation = call.operation ?? NO_OPERATION;
    for (let attempt = 0; ; attempt++) {
      if (hooks.onRequest) callHook(hooks.onRequest, { method: call.method, path: call.path, attempt });
      const started = hooks.onResponse ? Date.now() : 0;
      const traced = { method: call.method, template: call.template, url, attempt };
      const span = operation.attempt(traced);
      const result = await this.#transport.send(
        call.method,
        url,
        call.body,
        span.headers ? { ...call.headers, ...span.headers } : call.headers,
        timeoutMs,
        call.signal,
      );
      span.end(attemptEnd(result));
      if (result.kind === "aborted") {
        throw new PaykitConnectionError(
          "ABORTED",
          request,
          `${request} was aborted by the caller's signal` +
            (call.method === "POST" && attempt > 0 ? "; an earlier attempt may have taken effect." : "."),
          result.reason,
        );
      }
      if (result.kind === "response" && hooks.onResponse) {
        callHook(hooks.onResponse, {
          method: call.method,
          path: call.path,
          attempt,
          status: result.status,
          durationMs: Date.now() - started,
        });
      }
      if (result.kind === "response" && result.status >= 200 && result.status < 300) {
        const parsed = this.#parseSuccess(call, result.status, result.text);
        if (parsed.ok) return parsed.value;
      }
      const failure = this.#failureOf(result);
      let decision = decideRetry(call.retryClass, failure);
      // After an ambiguous attempt, "referenceId already used" means that attempt did create the
      // payout (the service keeps referenceIds unique): find it instead of reporting a failure.
      if (ambiguous && call.retryClass === "create-payout" && isReferenceConflict(result))
        decision = "lookup";
      if (decision === "lookup") ambiguous = true;
      let lookupNote = "";
      if (decision === "lookup" && call.referenceId !== undefined) {
        const outcome = await this.#lookup(call.referenceId, call, describe(failure));
        if ("found" in outcome && outcome.found) return outcome.found as T;
        if ("failed" in outcome) {
          lookupNote = ` The payout may have been created and looking it up failed: call payouts.findByReferenceId("${call.referenceId}") before sending it again.`;
          decision = "fail";
        } else {
          // An answered 5xx is over on the service's side; a timed-out or cut attempt (this one or an
          // earlier one) may still be running there, so "none was created" would be a promise we cannot keep.
          if (failure.kind !== "status") lostAttempt = true;
          lookupNote = ` No payout with referenceId "${call.referenceId}" exists, so none was created: sending it again is safe.`;
          decision = "retry";
        }
      } else if (decision === "lookup") {
        decision = "fail";
      }
      if (decision === "retry" && retries < maxRetries && !call.signal?.aborted) {
        const retryAfterMs =
          result.kind === "response" ? parseRetryAfter(result.headers.get("retry-after")) : undefined;
        const delayMs = nextDelay(retries, retryAfterMs, config.backoff);
        if (delayMs !== undefined) {
          callHook(hooks.onRetry, {
            method: call.method,
            path: call.path,
            attempt,
            delayMs,
            reason: describe(failure),
          });
          operation.retry(traced, describe(failure));
          await sleep(delayMs, call.signal);
          retries++;
          continue;
        }
      }
      if (lostAttempt && !lookupNote.includes("looking it up failed")) {
        lookupNote =
          ` No payout with referenceId "${call.referenceId}" was found, but a lost attempt may still be processed: ` +
          `check with payouts.findByReferenceId("${call.referenceId}") later. Sending it again with the same referenceId ` +
          "cannot pay twice (the service refuses a reused referenceId).";
      }
      throw this.#finalError(call, request, result, failure, attempt + 1, timeoutMs, lookupNote);
    }
  }

  #parseSuccess<T>(call: Call<T>, status: number, text: string): { ok: true; value: T } | { ok: false } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false };
    }
    if (!isPlainObject(json)) return { ok: false };
    const result = call.schema.safeParse(json);
    if (result.success) return { ok: true, value: result.data };
    // Lenient by decision (docs/decisions.md): an answer that breaks the contract still carries the
    // payment's data; losing it would be worse than returning it. The hook reports the mismatch.
    const details: ErrorDetail[] = loadedContract().issuesToDetails(result.error.issues);
    callHook(this.#config.hooks.onResponseMismatch, {
      method: call.method,
      path: call.path,
      status,
      details,
    });
    return { ok: true, value: json as T };
  }

  #failureOf(result: Exclude<AttemptResult, { kind: "aborted" }>): AttemptFailure {
    switch (result.kind) {
      case "timeout":
        return { kind: "timeout" };
      case "network":
        return { kind: "network", sent: result.failure.sent };
      case "response": {
        if (result.status >= 200 && result.status < 300) return { kind: "unreadable" };
        return { kind: "status", status: result.status, code: errorCodeOf(result.text) };
      }
    }
  }

  async #lookup(referenceId: string, call: Call<unknown>, reason: string): Promise<LookupOutcome> {
    let outcome: LookupOutcome;
    // Its own span, so a trace reads "timed out → looked up by referenceId → found, not sent again".
    const reconcile = (call.operation ?? NO_OPERATION).child("paykit.payouts.reconcile", {
      "paykit.reference_id": referenceId,
      "paykit.reconcile.reason": reason,
    });
    try {
      const found = await this.findPayout(referenceId, {
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
        ...(call.maxRetries !== undefined ? { maxRetries: call.maxRetries } : {}),
        operation: reconcile,
      });
      outcome = { found };
      reconcile.set({ "paykit.reconcile.found": found !== null, "paykit.payout.id": found?.id });
      reconcile.end();
    } catch (error) {
      outcome = { failed: true };
      reconcile.end(error);
    }
    callHook(this.#config.hooks.onPayoutLookup, {
      referenceId,
      found: "found" in outcome && outcome.found !== null,
      reason,
    });
    return outcome;
  }

  #finalError(
    call: Call<unknown>,
    request: string,
    result: Exclude<AttemptResult, { kind: "aborted" }>,
    failure: AttemptFailure,
    attempts: number,
    timeoutMs: number,
    lookupNote: string,
  ): PaykitError {
    const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
    const unknownOutcome =
      call.retryClass === "create-payin"
        ? " The payin may have been created: check your webhooks for its referenceId before creating it again."
        : "";
    const note = lookupNote || (failure.kind === "network" && failure.sent === "no" ? "" : unknownOutcome);
    if (result.kind === "timeout") {
      return new PaykitTimeoutError(
        request,
        timeoutMs,
        `No answer to ${request} within ${timeoutMs} ms${tries}.${note || " Try again later or raise timeoutMs."}`,
      );
    }
    if (result.kind === "network") {
      const what =
        result.failure.code === "CONNECTION_REFUSED"
          ? "the connection was refused (is baseUrl right and the service up?)"
          : result.failure.code === "DNS_FAILURE"
            ? "the host name did not resolve (check baseUrl)"
            : result.failure.code === "CONNECTION_RESET"
              ? "the connection was cut before the answer arrived"
              : "the network failed before the answer arrived";
      return new PaykitConnectionError(
        result.failure.code,
        request,
        `${request} failed: ${what}${tries}.${note}`,
        result.cause,
      );
    }
    const retryAfterMs = parseRetryAfter(result.headers.get("retry-after"));
    if (result.status >= 200 && result.status < 300) {
      return new PaykitApiError(
        {
          status: result.status,
          code: "INVALID_RESPONSE",
          message: `${request} answered ${result.status} with a body that is not a JSON object`,
          body: result.text.slice(0, 65_536),
          headers: result.headers,
          request,
          retryAfterMs,
        },
        `The call took effect but its answer is unreadable; check baseUrl (a proxy?).${note}`,
      );
    }
    const error = apiErrorFromResponse(result.status, result.headers, result.text, request, retryAfterMs);
    if (note) error.message += `${tries}.${note}`;
    else if (tries) error.message += ` ${tries.trim()}.`;
    return error;
  }
}

/** An attempt's result as its span ends it: the status, or why there was none. */
function attemptEnd(result: AttemptResult): AttemptEnd {
  switch (result.kind) {
    case "response":
      return { status: result.status };
    case "network":
      return { error: result.failure.code };
    default:
      return { error: result.kind };
  }
}

/** Whether an answer is 400 INVALID_DATA about `referenceId` (already used). */
function isReferenceConflict(result: AttemptResult): boolean {
  if (result.kind !== "response" || result.status !== 400) return false;
  try {
    const json = JSON.parse(result.text) as { code?: unknown; details?: unknown };
    return (
      json.code === "INVALID_DATA" &&
      Array.isArray(json.details) &&
      json.details.some((d: { path?: unknown }) => d?.path === "referenceId")
    );
  } catch {
    return false;
  }
}

/** The `code` of a JSON error body, or undefined (non-JSON answers are "without a documented code"). */
function errorCodeOf(text: string): string | undefined {
  try {
    const json: unknown = JSON.parse(text);
    const code = isPlainObject(json) ? json.code : undefined;
    return typeof code === "string" && code !== UNKNOWN_ERROR ? code : undefined;
  } catch {
    return undefined;
  }
}
