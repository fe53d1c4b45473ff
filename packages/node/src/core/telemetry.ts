import type * as OtelApi from "@opentelemetry/api";
import { VERSION } from "../version.js";

// OpenTelemetry without importing it. `@opentelemetry/api` keeps what a merchant registers (tracer
// provider, meter provider, propagator, context manager) in one global, `Symbol.for("opentelemetry.js.api.1")`,
// so that every copy of the API in a process shares them; the client reads them there, the way a second
// copy of the API would. Nothing is imported: a process without OpenTelemetry pays one property read
// per SDK call, and no bundler (Workers, the Edge runtime, a Lambda bundle) has a module to resolve.
// `@opentelemetry/api` ^1.3.0 stays an optional peer dependency: the registry of those versions is what
// the client reads, and their types are what it is checked against.

const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");
// The API's context key of the active span (`createContextKey` is `Symbol.for` of its description).
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
// The API's enums, as the numbers they are.
const SPAN_KIND_INTERNAL = 0 as OtelApi.SpanKind.INTERNAL;
const SPAN_KIND_CLIENT = 2 as OtelApi.SpanKind.CLIENT;
const STATUS_ERROR = 2 as OtelApi.SpanStatusCode.ERROR;

interface OtelGlobal {
  version?: string;
  trace?: OtelApi.TracerProvider;
  metrics?: OtelApi.MeterProvider;
  propagation?: OtelApi.TextMapPropagator;
  context?: OtelApi.ContextManager;
}

function registry(): OtelGlobal | undefined {
  const registered = (globalThis as Record<symbol, OtelGlobal | undefined>)[OTEL_GLOBAL];
  // the same major version only: a 2.x registry would live under another symbol anyway
  return registered?.version?.startsWith("1.") ? registered : undefined;
}

/** The API's empty context, for a process without a context manager: an immutable map. */
class RootContext implements OtelApi.Context {
  readonly #values: ReadonlyMap<symbol, unknown>;
  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): OtelApi.Context {
    return new RootContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): OtelApi.Context {
    const values = new Map(this.#values);
    values.delete(key);
    return new RootContext(values);
  }
}
const ROOT_CONTEXT = new RootContext();

const activeContext = (): OtelApi.Context => registry()?.context?.active() ?? ROOT_CONTEXT;
const withSpan = (context: OtelApi.Context, span: OtelApi.Span): OtelApi.Context =>
  context.setValue(SPAN_KEY, span);
const validId = (id: string, length: number) =>
  id.length === length && /^[0-9a-f]+$/.test(id) && /[1-9a-f]/.test(id);

/** Whether a tracer provider, meter provider or propagator is registered with `@opentelemetry/api` 1.x. */
export function telemetryRegistered(): boolean {
  const registered = (globalThis as Record<symbol, OtelGlobal | undefined>)[OTEL_GLOBAL];
  return (
    registered !== undefined &&
    (registered.trace !== undefined ||
      registered.metrics !== undefined ||
      registered.propagation !== undefined)
  );
}

/** Paykit's own span attributes (never a secret, a card field or a customer's document). */
export interface PaykitAttributes {
  "paykit.reference_id"?: string | undefined;
  "paykit.payment_method"?: string | undefined;
  "paykit.payin.id"?: string | undefined;
  "paykit.payout.id"?: string | undefined;
  /** On `paykit.payouts.reconcile`: whether the payout existed. */
  "paykit.reconcile.found"?: boolean | undefined;
  /** The client-made id of the request whose answer (or failure) the call ended with. */
  "paykit.request_id"?: string | undefined;
}

/** One HTTP attempt about to be sent. */
export interface AttemptStart {
  method: string;
  /** The route with its parameters named, e.g. `/payin/{id}` (`url.template`). */
  template: string;
  url: string;
  /** 0 for the first attempt (`http.request.resend_count` is set from 1). */
  attempt: number;
  /** The attempt's client-made id (`paykit.request_id`), sent as `X-Request-Id`. */
  requestId: string;
}

/** How an attempt ended: an answer's status, or a low-cardinality reason there was none. */
export type AttemptEnd = { status: number } | { error: string };

/** One HTTP attempt's span: the trace headers to send with it, and its end. */
export interface Attempt {
  /** `traceparent` (and `tracestate`) for this attempt, or undefined when nothing is traced. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  end(outcome: AttemptEnd): void;
}

/** One SDK call (`paykit.payouts.create`, …): the parent of its attempts. */
export interface Operation {
  /** Adds attributes learned during the call (the created payout's id). */
  set(attributes: PaykitAttributes): void;
  /** Starts the span of one HTTP attempt, a child of this call. */
  attempt(start: AttemptStart): Attempt;
  /** Counts a retry (the `paykit.client.retries` metric) and notes it on the call's span. */
  retry(start: AttemptStart, reason: string): void;
  /** Starts a child operation (the payout lookup after an ambiguous failure). */
  child(name: string, attributes: Record<string, string>): Operation;
  /** Ends the call: ok, or with the error it throws. */
  end(error?: unknown): void;
  /** Runs `fn` with this call's span as the active context (nested SDK calls become its children). */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

const NO_ATTEMPT: Attempt = { headers: undefined, end() {} };

/** The operation used when nothing is registered: every method does nothing. */
export const NO_OPERATION: Operation = {
  set() {},
  attempt: () => NO_ATTEMPT,
  retry() {},
  child: () => NO_OPERATION,
  end() {},
  run: (fn) => fn(),
};

let telemetry: Telemetry | undefined;

/**
 * Starts the operation of one SDK call: a span named `name` when a tracer provider is registered,
 * otherwise {@link NO_OPERATION}.
 */
export function startOperation(name: string, attributes: PaykitAttributes): Operation {
  if (!telemetryRegistered()) return NO_OPERATION;
  telemetry ??= new Telemetry();
  const current = telemetry;
  return quietly(() => current.operation(name, attributes)) ?? NO_OPERATION;
}

/**
 * Runs one SDK call as the operation `name`: a span with `attributes`, plus those `learned` from
 * its result, ended with the error it throws. Checks the registration before any `await`, so an
 * untraced call costs one property read.
 */
export function traced<T>(
  name: string,
  attributes: PaykitAttributes,
  run: (operation: Operation) => Promise<T>,
  learned?: (value: T) => PaykitAttributes,
): Promise<T> {
  if (!telemetryRegistered()) return run(NO_OPERATION);
  return tracedCall(name, attributes, run, learned);
}

async function tracedCall<T>(
  name: string,
  attributes: PaykitAttributes,
  run: (operation: Operation) => Promise<T>,
  learned?: (value: T) => PaykitAttributes,
): Promise<T> {
  const operation = startOperation(name, attributes);
  let value: T;
  try {
    value = await operation.run(() => run(operation));
  } catch (error) {
    operation.end(error);
    throw error;
  }
  if (learned) quietly(() => operation.set(learned(value)));
  operation.end();
  return value;
}

/**
 * Runs a piece of telemetry, ignoring what it throws: a misbehaving exporter or propagator must never
 * change a payment's outcome (the same rule as the hooks').
 */
function quietly<T>(fn: () => T, fallback?: T): T | undefined {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** A string attribute from caller input, or undefined (no validation has run yet). */
export function stringAttribute(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= 256 ? value : undefined;
}

/** The attributes of a paykit error: its code, class and request id, never its message's data. */
function errorAttributes(error: unknown): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (error instanceof Error) attributes["error.type"] = error.name;
  const { code, requestId } = (error ?? {}) as { code?: unknown; requestId?: unknown };
  if (typeof code === "string") attributes["paykit.error.code"] = code;
  if (typeof requestId === "string") attributes["paykit.request_id"] = requestId;
  if (attributes["error.type"] === undefined) attributes["error.type"] = "_OTHER";
  return attributes;
}

function defined(attributes: PaykitAttributes | Record<string, string | undefined>): OtelApi.Attributes {
  const out: OtelApi.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

interface Instruments {
  provider: OtelApi.MeterProvider;
  duration: OtelApi.Histogram;
  retries: OtelApi.Counter;
}

/** What is registered now: the tracer, the propagator and (with a meter provider) the metrics. */
class Telemetry {
  #tracerProvider: OtelApi.TracerProvider | undefined;
  #tracer: OtelApi.Tracer | undefined;
  #instruments: Instruments | undefined;

  /** The tracer of the tracer provider registered now, or undefined (re-created if it changed). */
  tracer(): OtelApi.Tracer | undefined {
    const provider = registry()?.trace;
    if (provider !== this.#tracerProvider) {
      this.#tracerProvider = provider;
      this.#tracer = provider?.getTracer("@paykit/node", VERSION);
    }
    return this.#tracer;
  }

  /** The metric instruments of the meter provider registered now, or undefined (re-created if it changed). */
  instruments(): Instruments | undefined {
    const provider = registry()?.metrics;
    if (provider === undefined) return undefined;
    if (this.#instruments?.provider !== provider) {
      const meter = provider.getMeter("@paykit/node", VERSION);
      this.#instruments = {
        provider,
        duration: meter.createHistogram("http.client.request.duration", {
          description: "Duration of HTTP client requests.",
          unit: "s",
          advice: {
            explicitBucketBoundaries: [
              0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
            ],
          },
        }),
        retries: meter.createCounter("paykit.client.retries", {
          description: "Attempts the client sent again after a failure its retry policy deems safe.",
          unit: "{retry}",
        }),
      };
    }
    return this.#instruments;
  }

  /** Writes the trace headers of `context` into `headers` through the registered propagator. */
  inject(context: OtelApi.Context, headers: Record<string, string>): void {
    registry()?.propagation?.inject(context, headers, {
      set: (carrier: Record<string, string>, key: string, value: string) => {
        carrier[key] = value;
      },
    });
  }

  operation(
    name: string,
    attributes: PaykitAttributes | Record<string, string>,
    parent?: OtelApi.Context,
  ): Operation {
    const parentContext = parent ?? activeContext();
    const tracer = this.tracer();
    const span = tracer?.startSpan(
      name,
      { kind: SPAN_KIND_INTERNAL, attributes: defined(attributes) },
      parentContext,
    );
    return new LiveOperation(this, span, span ? withSpan(parentContext, span) : parentContext);
  }
}

class LiveOperation implements Operation {
  readonly #telemetry: Telemetry;
  readonly #span: OtelApi.Span | undefined;
  readonly #context: OtelApi.Context;

  constructor(telemetry: Telemetry, span: OtelApi.Span | undefined, context: OtelApi.Context) {
    this.#telemetry = telemetry;
    this.#span = span;
    this.#context = context;
  }

  set(attributes: PaykitAttributes): void {
    quietly(() => this.#span?.setAttributes(defined(attributes)));
  }

  attempt(start: AttemptStart): Attempt {
    return quietly(() => this.#attempt(start)) ?? NO_ATTEMPT;
  }

  #attempt(start: AttemptStart): Attempt {
    const telemetry = this.#telemetry;
    const url = new URL(start.url);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    const common: OtelApi.Attributes = {
      "http.request.method": start.method,
      "url.template": start.template,
      "server.address": url.hostname,
      "server.port": port,
    };
    const span = telemetry.tracer()?.startSpan(
      `${start.method} ${start.template}`,
      {
        kind: SPAN_KIND_CLIENT,
        attributes: {
          ...common,
          "url.full": url.href,
          "paykit.request_id": start.requestId,
          ...(start.attempt > 0 ? { "http.request.resend_count": start.attempt } : {}),
        },
      },
      this.#context,
    );
    const headers: Record<string, string> = {};
    const context = span ? withSpan(this.#context, span) : this.#context;
    quietly(() => telemetry.inject(context, headers));
    const spanContext = span?.spanContext();
    // No propagator registered (a bare tracer provider): W3C Trace Context is what the service reads.
    if (
      headers.traceparent === undefined &&
      spanContext &&
      validId(spanContext.traceId, 32) &&
      validId(spanContext.spanId, 16)
    ) {
      const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
      headers.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
      const state = spanContext.traceState?.serialize();
      if (state) headers.tracestate = state;
    }
    const started = performance.now();
    return {
      headers: Object.keys(headers).length > 0 ? headers : undefined,
      end(outcome) {
        quietly(() => endAttempt(outcome));
      },
    };
    function endAttempt(outcome: AttemptEnd): void {
      const result: OtelApi.Attributes = {};
      if ("status" in outcome) {
        result["http.response.status_code"] = outcome.status;
        if (outcome.status >= 400) result["error.type"] = String(outcome.status);
      } else {
        result["error.type"] = outcome.error;
      }
      if (span) {
        span.setAttributes(result);
        if (result["error.type"] !== undefined) span.setStatus({ code: STATUS_ERROR });
        span.end();
      }
      telemetry
        .instruments()
        ?.duration.record((performance.now() - started) / 1000, { ...common, ...result });
    }
  }

  retry(start: AttemptStart, reason: string): void {
    quietly(() => this.#retry(start, reason));
  }

  #retry(start: AttemptStart, reason: string): void {
    this.#span?.addEvent("paykit.retry", {
      "http.request.resend_count": start.attempt + 1,
      "paykit.retry.reason": reason,
      "paykit.request_id": start.requestId,
    });
    this.#telemetry.instruments()?.retries.add(1, {
      "http.request.method": start.method,
      "url.template": start.template,
      "paykit.retry.reason": reason,
    });
  }

  child(name: string, attributes: Record<string, string>): Operation {
    return quietly(() => this.#telemetry.operation(name, attributes, this.#context)) ?? NO_OPERATION;
  }

  end(error?: unknown): void {
    quietly(() => {
      if (error !== undefined) {
        this.#span?.setAttributes(errorAttributes(error));
        this.#span?.setStatus({ code: STATUS_ERROR });
      }
      this.#span?.end();
    });
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    const manager = registry()?.context;
    return manager ? manager.with(this.#context, fn) : fn();
  }
}
