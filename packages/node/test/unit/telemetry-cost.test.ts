// The client never imports @opentelemetry/api (it reads what the merchant registered from the API's
// global registry), sends no trace header while nothing is registered, and traces from the next call
// once a provider is. The mock factory below would run if anything imported the module.
import { afterAll, describe, expect, it, vi } from "vitest";
import { Paykit } from "../../src/index.js";
import { BASE_URL, KEYS } from "../support/fixtures.js";

const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock("@opentelemetry/api", async (importActual) => {
  loads.count++;
  return importActual();
});

afterAll(async () => (await import("@opentelemetry/api")).trace.disable());

describe("the cost of tracing when nothing is registered", () => {
  it("no import of @opentelemetry/api by the client, and no trace header until a provider is registered", async () => {
    const sent: Headers[] = [];
    const paykit = new Paykit({
      ...KEYS,
      baseUrl: BASE_URL,
      fetch: async (input, init) => {
        sent.push(new Headers(input instanceof Request ? input.headers : init?.headers));
        return new Response(JSON.stringify({ code: "NOT_FOUND", message: "no" }), { status: 404 });
      },
    });
    await paykit.payins.retrieve("pi_1").catch(() => undefined);
    await paykit.payouts.list().catch(() => undefined);
    await paykit.payouts
      .create({ amount: 1, pixKey: "a@b.co", pixKeyType: "EMAIL", referenceId: "r-1" })
      .catch(() => undefined);
    expect(loads.count).toBe(0);
    expect(sent.map((h) => h.get("traceparent"))).toEqual([null, null, null]);

    // the test's own import loads it once; registering a provider makes the client trace
    const { trace } = await import("@opentelemetry/api");
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      "@opentelemetry/sdk-trace-base"
    );
    expect(loads.count).toBe(1);
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    await paykit.payins.retrieve("pi_1").catch(() => undefined);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([
      "GET /payin/{id}",
      "paykit.payins.retrieve",
    ]);
    expect(sent.at(-1)?.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
