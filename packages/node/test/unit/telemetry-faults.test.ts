// Observability never changes a payment's outcome: a tracer provider, span or propagator that throws
// leaves every call's result and error exactly as without tracing.
import { propagation, type Span, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { Paykit } from "../../src/index.js";
import { BASE_URL, KEYS } from "../support/fixtures.js";

const boom = () => {
  throw new Error("exporter down");
};

afterEach(() => {
  trace.disable();
  propagation.disable();
});

function client() {
  let calls = 0;
  const paykit = new Paykit({
    ...KEYS,
    baseUrl: BASE_URL,
    retryBackoff: { initialDelayMs: 0, maxDelayMs: 0 },
    fetch: async () => {
      calls++;
      return calls === 1
        ? new Response(JSON.stringify({ code: "INTERNAL_ERROR", message: "x" }), { status: 503 })
        : new Response(JSON.stringify({ code: "NOT_FOUND", message: "no payin" }), { status: 404 });
    },
  });
  return { paykit, calls: () => calls };
}

describe("a misbehaving OpenTelemetry setup", () => {
  it.each([
    ["a provider whose getTracer throws", { getTracer: boom } as unknown as TracerProvider],
    [
      "a tracer whose startSpan throws",
      { getTracer: () => ({ startSpan: boom, startActiveSpan: boom }) as unknown as Tracer },
    ],
    [
      "spans whose every method throws",
      {
        getTracer: () =>
          ({
            startSpan: () =>
              new Proxy({} as Span, {
                get: (_target, name) => (name === "then" ? undefined : boom),
              }),
          }) as unknown as Tracer,
      },
    ],
  ] as const)("%s: the call still retries and fails as it would untraced", async (_name, provider) => {
    trace.setGlobalTracerProvider(provider);
    const { paykit, calls } = client();
    await expect(paykit.payins.retrieve("pi_1")).rejects.toMatchObject({ name: "NotFoundError" });
    expect(calls()).toBe(2);
  });

  it("a propagator that throws: the request is sent without trace headers", async () => {
    propagation.setGlobalPropagator({ inject: boom, extract: (ctx) => ctx, fields: () => [] });
    const { paykit, calls } = client();
    await expect(paykit.payins.retrieve("pi_1")).rejects.toMatchObject({ name: "NotFoundError" });
    expect(calls()).toBe(2);
  });
});
