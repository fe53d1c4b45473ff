import { PaykitValidationError } from "../errors/validation-error.js";
import { errorBodyOf, errorCodeOf, fastSchema, readSuccess, UNREADABLE } from "./answer.js";
import { type AnswerSlot, answered, newAnswerSlot, type PaykitPromise } from "./api-promise.js";
import type { RequestOptions, ResolvedConfig } from "./config.js";
import { contractIfLoaded, loadContract } from "./contract.js";
import type { ContractModule, Endpoint } from "./endpoint.js";
import { abortedError, finalError } from "./final-error.js";
import { callHook } from "./hooks.js";
import { type Fate, fateOf, finalFate } from "./outcome.js";
import { queryString } from "./path.js";
import { newRequestId } from "./request-id.js";
import {
  type AttemptFailure,
  classifyFailure,
  nextDelay,
  parseRetryAfter,
  RETRY_POLICY,
  type RetryDecision,
} from "./retry-policy.js";
import { sleep } from "./sleep.js";
import {
  type AttemptEnd,
  type AttemptStart,
  NO_OPERATION,
  type Operation,
  telemetryRegistered,
  traced,
} from "./telemetry.js";
import type { AttemptResult, Transport } from "./transport.js";

/** One call in progress: what each of its attempts sends, and its limits. */
interface Call {
  method: "GET" | "POST";
  /** Path and query relative to baseUrl, as the hooks report it. */
  path: string;
  url: string;
  /** Method and path without the query, as errors name it: `GET /payin/pi_1`. */
  request: string;
  template: string;
  body: string | undefined;
  options: RequestOptions;
  timeoutMs: number;
  maxRetries: number;
  operation: Operation;
  /** Where the answer the result is read from is kept, for `withResponse()`. */
  slot: AnswerSlot;
}

/** What a reconciliation found. */
type Reconciled<Out> = { kind: "found"; record: Out } | { kind: "absent" } | { kind: "failed" };

const NO_OPTIONS: RequestOptions = {};
const ABSENT = { kind: "absent" } as const;
const FAILED = { kind: "failed" } as const;

/** How a failed attempt is named in hooks, retry events and span events. */
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

/**
 * The request engine behind every resource method. It knows no resource: an {@link Endpoint} says
 * what to send and how to read, trace and explain it; the core checks the request, sends attempts,
 * reads answers leniently with the contract, applies the money-safe retry policy (`RETRY_POLICY`),
 * lets the endpoint reconcile an ambiguous failure, and builds the final error from a typed {@link Fate}.
 */
export class ApiCore {
  readonly #config: ResolvedConfig;
  readonly #transport: Transport;

  constructor(config: ResolvedConfig, transport: Transport) {
    this.#config = config;
    this.#transport = transport;
  }

  /**
   * Calls `endpoint` with `input`: its own span when a tracer provider is registered, or a part of
   * `operation` (a lookup inside another call, whose answer goes to that call's `slot`).
   */
  send<In, Out, Answer>(
    endpoint: Endpoint<In, Out, Answer>,
    input: In,
    options: RequestOptions = NO_OPTIONS,
    operation?: Operation,
    slot: AnswerSlot = newAnswerSlot(),
  ): PaykitPromise<Out> {
    // Checked before anything else: an untraced call pays one property read for tracing.
    if (operation !== undefined || !telemetryRegistered()) {
      return answered(this.#call(endpoint, input, options, operation ?? NO_OPERATION, slot), slot);
    }
    const outcome = traced(
      endpoint.name,
      endpoint.attributes(input),
      (live) => this.#call(endpoint, input, options, live, slot),
      endpoint.learned,
    );
    return answered(outcome, slot);
  }

  async #call<In, Out, Answer>(
    endpoint: Endpoint<In, Out, Answer>,
    input: In,
    options: RequestOptions,
    operation: Operation,
    slot: AnswerSlot,
  ): Promise<Out> {
    const contract = contractIfLoaded() ?? (await loadContract());
    if (endpoint.request !== undefined && this.#config.validateRequests) {
      const checked = contract.validate(endpoint.request(contract), input);
      if (!checked.success) throw new PaykitValidationError(checked.code, checked.message, checked.details);
    }
    const route = endpoint.path(input);
    const path = endpoint.query === undefined ? route : route + queryString(endpoint.query(input));
    const call: Call = {
      method: endpoint.method,
      path,
      url: this.#config.baseUrl + path,
      request: `${endpoint.method} /${route}`,
      template: endpoint.template,
      body: endpoint.method === "POST" ? JSON.stringify(input) : undefined,
      options,
      timeoutMs: options.timeoutMs ?? this.#config.timeoutMs,
      maxRetries: options.maxRetries ?? this.#config.maxRetries,
      operation,
      slot,
    };
    return this.#attempts(endpoint, input, call, contract);
  }

  async #attempts<In, Out, Answer>(
    endpoint: Endpoint<In, Out, Answer>,
    input: In,
    call: Call,
    contract: ContractModule,
  ): Promise<Out> {
    const schema = fastSchema(contract, endpoint.response(contract, input));
    let retries = 0;
    // An earlier attempt got no answer, and the lookup after it found nothing yet: the service may still run it.
    let inFlight = false;
    // An earlier attempt may have taken effect (so "already exists" may mean it did).
    let ambiguous = false;
    // The id of the last attempt that left (or may have): what an error names.
    let lastSent: string | undefined;
    for (let attempt = 0; ; attempt++) {
      const requestId = newRequestId();
      const result = await this.#attempt(call, attempt, requestId);
      if (result.kind === "aborted") {
        if (result.sent !== "no") lastSent = requestId;
        const fate = finalFate(result.sent === "no" ? "answered" : "unknown", inFlight);
        throw abortedError(call.request, result.reason, endpoint.explain?.(fate, input), lastSent);
      }
      lastSent = requestId;
      if (result.kind === "response" && result.status >= 200 && result.status < 300) {
        const answer = readSuccess(contract, schema, result.text, (details) =>
          callHook(this.#config.hooks.onResponseMismatch, {
            method: call.method,
            path: call.path,
            status: result.status,
            requestId,
            details,
          }),
        );
        if (answer !== UNREADABLE) {
          this.#answered(call, requestId, result);
          return endpoint.result ? endpoint.result(answer, input) : (answer as unknown as Out);
        }
      }
      const body = result.kind === "response" ? errorBodyOf(result.text) : undefined;
      const failure: AttemptFailure =
        result.kind === "response"
          ? result.status >= 200 && result.status < 300
            ? { kind: "unreadable" }
            : { kind: "status", status: result.status, code: errorCodeOf(body) }
          : result.kind === "timeout"
            ? { kind: "timeout" }
            : { kind: "network", sent: result.failure.sent };
      const policy = RETRY_POLICY[classifyFailure(failure)];
      let decision: RetryDecision = policy[endpoint.retry];
      let fate = fateOf(policy.effect);
      const reconcile = endpoint.reconcile;
      if (ambiguous && result.kind === "response" && reconcile?.duplicate?.(result.status, body)) {
        decision = "lookup";
      }
      if (decision === "lookup" && reconcile !== undefined) {
        ambiguous = true;
        const found = await this.#reconcile(endpoint, input, call, describe(failure), requestId);
        if (found.kind === "found") {
          // The lookup's answer is in the slot (it was sent with this call's): it is what the record came from.
          this.#named(call, call.slot.requestId);
          return found.record;
        }
        if (found.kind === "failed") {
          fate = "lookup-failed";
          decision = "fail";
        } else {
          // An answered 5xx is over on the service's side; an attempt that got no answer may still run there.
          if (policy.effect === "in-flight") inFlight = true;
          fate = "absent";
          decision = "retry";
        }
      } else if (decision === "lookup") {
        decision = "fail";
      }
      if (decision === "retry" && retries < call.maxRetries && !call.options.signal?.aborted) {
        const delayMs = nextDelay(retries, this.#retryAfter(result), this.#config.backoff);
        if (delayMs !== undefined) {
          this.#retrying(call, attempt, requestId, delayMs, describe(failure));
          await sleep(delayMs, call.options.signal);
          retries++;
          continue;
        }
      }
      const note = endpoint.explain?.(finalFate(fate, inFlight), input);
      throw finalError(
        { request: call.request, timeoutMs: call.timeoutMs, attempts: attempt + 1, note, requestId },
        result,
      );
    }
  }

  /** Keeps the answer a call's result is read from, for `withResponse()`, and names it on the call's span. */
  #answered(call: Call, requestId: string, result: AttemptResult & { kind: "response" }): void {
    const { slot } = call;
    slot.requestId = requestId;
    slot.url = call.url;
    slot.response = result.response;
    slot.text = result.text;
    this.#named(call, requestId);
  }

  /** Sets `paykit.request_id` on the call's span (an error sets it from its own `requestId`). */
  #named(call: Call, requestId: string | undefined): void {
    if (call.operation !== NO_OPERATION) call.operation.set({ "paykit.request_id": requestId });
  }

  /** One attempt, with its hooks and its span. */
  async #attempt(call: Call, attempt: number, requestId: string): Promise<AttemptResult> {
    const { hooks } = this.#config;
    if (hooks.onRequest) {
      callHook(hooks.onRequest, { method: call.method, path: call.path, attempt, requestId });
    }
    const started = hooks.onResponse ? Date.now() : 0;
    const span =
      call.operation === NO_OPERATION
        ? undefined
        : call.operation.attempt(this.#start(call, attempt, requestId));
    const { options } = call;
    const headers = span?.headers ? { ...options.headers, ...span.headers } : options.headers;
    const result = await this.#transport.send(
      call.method,
      call.url,
      requestId,
      call.body,
      headers,
      call.timeoutMs,
      options.signal,
    );
    span?.end(attemptEnd(result));
    if (result.kind === "response" && hooks.onResponse) {
      callHook(hooks.onResponse, {
        method: call.method,
        path: call.path,
        attempt,
        requestId,
        status: result.status,
        durationMs: Date.now() - started,
      });
    }
    return result;
  }

  #start(call: Call, attempt: number, requestId: string): AttemptStart {
    return { method: call.method, template: call.template, url: call.url, attempt, requestId };
  }

  #retryAfter(result: AttemptResult): number | undefined {
    return result.kind === "response" ? parseRetryAfter(result.headers.get("retry-after")) : undefined;
  }

  #retrying(call: Call, attempt: number, requestId: string, delayMs: number, reason: string): void {
    const { onRetry } = this.#config.hooks;
    if (onRetry) {
      callHook(onRetry, { method: call.method, path: call.path, attempt, requestId, delayMs, reason });
    }
    call.operation.retry(this.#start(call, attempt, requestId), reason);
  }

  /** Asks the endpoint what an ambiguous attempt may have created. */
  async #reconcile<In, Out, Answer>(
    endpoint: Endpoint<In, Out, Answer>,
    input: In,
    call: Call,
    reason: string,
    requestId: string,
  ): Promise<Reconciled<Out>> {
    const { signal, timeoutMs, maxRetries } = call.options;
    try {
      const record = await endpoint.reconcile?.find(input, {
        reason,
        requestId,
        operation: call.operation,
        options: {
          ...(signal ? { signal } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(maxRetries !== undefined ? { maxRetries } : {}),
        },
        hooks: this.#config.hooks,
        // The lookup's answer goes to this call's slot: when it finds the record, that answer is the call's.
        send: (lookup, lookupInput, options, operation) =>
          this.send(lookup, lookupInput, options, operation, call.slot),
      });
      return record === null || record === undefined ? ABSENT : { kind: "found", record };
    } catch {
      return FAILED;
    }
  }
}
