// OpenTelemetry over the real mock: each SDK call is one span with a CLIENT child per HTTP attempt
// (HTTP client semantic conventions), the payout lookup after an ambiguous failure is its own span,
// the W3C traceparent reaches the mock and comes back on the webhook, and no secret or card field
// ever lands in a span. Spans come from sdk-trace-base's in-memory exporter, metrics from a reader.

import { readFileSync } from "node:fs";
import {
  context,
  metrics,
  propagation,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Paykit } from "../../src/index.js";
import { card } from "../support/fixtures.js";
import { startMock } from "../support/mock.js";
import { renderTrace } from "../support/render-trace.js";
import { cardPayin, payout, pixPayin } from "../support/requests.js";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  context.disable();
  propagation.disable();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});
beforeEach(() => exporter.reset());

function spans(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}
function named(name: string): ReadableSpan[] {
  return spans().filter((s) => s.name === name);
}
function one(name: string): ReadableSpan {
  const found = named(name);
  expect(found, `spans named ${name}: ${spans().map((s) => s.name)}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}
function childrenOf(parent: ReadableSpan): ReadableSpan[] {
  return spans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
}
function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-01`;
}

async function metricPoints(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .filter((s) => s.scope.name === "@paykit/node")
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as DataPoint<unknown>[]);
}

describe("spans of SDK calls over the real mock", () => {
  it("payins.create: one INTERNAL span, one CLIENT child with the HTTP semantic conventions", async () => {
    await using api = await startMock("http");
    const request = pixPayin();
    const { data: payin, requestId } = await api.paykit.payins.create(request).withResponse();
    const call = one("paykit.payins.create");
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(call.instrumentationScope.name).toBe("@paykit/node");
    expect(call.attributes).toMatchObject({
      "paykit.payment_method": "PIX",
      "paykit.reference_id": request.referenceId,
      "paykit.payin.id": payin.id,
      "paykit.request_id": requestId,
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    const [attempt, ...others] = childrenOf(call);
    expect(others).toEqual([]);
    const url = new URL(api.baseUrl);
    expect(attempt?.name).toBe("POST /payin");
    expect(attempt?.kind).toBe(SpanKind.CLIENT);
    expect(attempt?.attributes).toEqual({
      "http.request.method": "POST",
      "url.template": "/payin",
      "url.full": `${api.baseUrl.replace(/\/?$/, "/")}payin`,
      "server.address": url.hostname,
      "server.port": Number(url.port),
      "http.response.status_code": 201,
      "paykit.request_id": requestId,
    });
  });

  it("request ids: each attempt's span, each retry event and the call's span name the ids sent", async () => {
    await using api = await startMock("http");
    const created = await api.paykit.payins.create(pixPayin());
    await api.control.addFault({ method: "GET", path: `/payin/${created.id}`, status: 503, times: 2 });
    const sent: string[] = [];
    const paykit = api.client({ hooks: { onRequest: (e) => void sent.push(e.requestId) } });
    exporter.reset();
    const { requestId } = await paykit.payins.retrieve(created.id).withResponse();
    const call = one("paykit.payins.retrieve");
    expect(childrenOf(call).map((a) => a.attributes["paykit.request_id"])).toEqual(sent);
    expect(call.events.map((e) => e.attributes?.["paykit.request_id"])).toEqual(sent.slice(0, 2));
    expect(new Set(sent).size).toBe(3);
    expect(call.attributes["paykit.request_id"]).toBe(requestId);
    expect(requestId).toBe(sent[2]);
  });

  it("payins.retrieve of an unknown id: the call carries paykit.error.code, the attempt error.type 404", async () => {
    await using api = await startMock("http");
    const error = await api.paykit.payins.retrieve("pi_unknown").catch((e: { requestId: string }) => e);
    expect(error).toMatchObject({ code: "NOT_FOUND" });
    const call = one("paykit.payins.retrieve");
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes).toMatchObject({
      "paykit.payin.id": "pi_unknown",
      "paykit.error.code": "NOT_FOUND",
      "error.type": "NotFoundError",
      "paykit.request_id": error.requestId,
    });
    const [attempt] = childrenOf(call);
    expect(attempt?.name).toBe("GET /payin/{id}");
    expect(attempt?.attributes).toMatchObject({
      "url.template": "/payin/{id}",
      "http.response.status_code": 404,
      "error.type": "404",
    });
    expect(attempt?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("a request refused before sending is a span with the validation code and no attempt", async () => {
    await using api = await startMock("http");
    await expect(api.paykit.payouts.create(payout({ amount: -5 }))).rejects.toMatchObject({
      code: "INVALID_DATA",
    });
    const call = one("paykit.payouts.create");
    expect(call.attributes["paykit.error.code"]).toBe("INVALID_DATA");
    expect(call.attributes["paykit.request_id"]).toBeUndefined();
    expect(childrenOf(call)).toEqual([]);
  });

  it("retries: one child per attempt, http.request.resend_count from 1, a retry event and the metrics", async () => {
    await using api = await startMock("http");
    const created = await api.paykit.payins.create(pixPayin());
    await api.control.addFault({ method: "GET", path: `/payin/${created.id}`, status: 503, times: 2 });
    const before = await metricPoints("paykit.client.retries");
    const retriesBefore = before.reduce((sum, p) => sum + (p.value as number), 0);
    exporter.reset();
    await api.paykit.payins.retrieve(created.id);
    const call = one("paykit.payins.retrieve");
    const attempts = childrenOf(call); // exported as they end: in order, since attempts are sequential
    expect(attempts.map((a) => a.attributes["http.response.status_code"])).toEqual([503, 503, 200]);
    expect(attempts.map((a) => a.attributes["http.request.resend_count"])).toEqual([undefined, 1, 2]);
    expect(call.events.map((e) => [e.name, e.attributes?.["paykit.retry.reason"]])).toEqual([
      ["paykit.retry", "status 503"],
      ["paykit.retry", "status 503"],
    ]);
    const after = await metricPoints("paykit.client.retries");
    expect(after.reduce((sum, p) => sum + (p.value as number), 0) - retriesBefore).toBe(2);
    const durations = (await metricPoints("http.client.request.duration")).filter(
      (p) => p.attributes["url.template"] === "/payin/{id}",
    );
    const statuses = Object.fromEntries(
      durations.map((p) => [p.attributes["http.response.status_code"], (p.value as Histogram).count]),
    );
    expect(statuses).toMatchObject({ 503: 2, 200: 1 });
    expect(durations.every((p) => p.attributes["server.address"] === "127.0.0.1")).toBe(true);
  });

  it("a lost answer to POST /payout: cut → paykit.payouts.reconcile finds it → not sent again", async () => {
    await using api = await startMock("http");
    const request = payout();
    await api.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
    const { data: created, requestId } = await api.paykit.payouts.create(request).withResponse();
    const call = one("paykit.payouts.create");
    expect(call.attributes).toMatchObject({
      "paykit.reference_id": request.referenceId,
      "paykit.payout.id": created.id,
      // the lookup's request: the answer the payout was read from
      "paykit.request_id": requestId,
    });
    const [post, reconcile, ...others] = childrenOf(call).sort((a, b) =>
      a.name === "POST /payout" ? -1 : b.name === "POST /payout" ? 1 : 0,
    );
    expect(others).toEqual([]);
    expect(post?.attributes["error.type"]).toMatch(/^(CONNECTION_RESET|NETWORK_ERROR)$/);
    expect(reconcile?.name).toBe("paykit.payouts.reconcile");
    expect(reconcile?.attributes).toMatchObject({
      "paykit.reference_id": request.referenceId,
      "paykit.reconcile.found": true,
      "paykit.payout.id": created.id,
      "paykit.reconcile.reason": "network",
    });
    const [lookup] = childrenOf(reconcile as ReadableSpan);
    expect(lookup?.name).toBe("GET /payout");
    expect(lookup?.attributes["paykit.request_id"]).toBe(requestId);
    expect(lookup?.attributes["url.full"]).toContain(`referenceId=${request.referenceId}`);
    expect(named("POST /payout")).toHaveLength(1);
  });

  it("a 5xx without a documented code: reconcile finds nothing, the payout is sent again", async () => {
    await using api = await startMock("http");
    await api.control.addFault({ method: "POST", path: "/payout", status: 503 });
    await api.paykit.payouts.create(payout());
    const call = one("paykit.payouts.create");
    expect(one("paykit.payouts.reconcile").attributes["paykit.reconcile.found"]).toBe(false);
    const posts = childrenOf(call).filter((s) => s.name === "POST /payout");
    expect(posts.map((s) => s.attributes["http.response.status_code"]).sort()).toEqual([201, 503]);
  });

  it("SDK calls inside the merchant's span are its children; nested SDK calls nest (webhooks.confirm)", async () => {
    await using api = await startMock("http");
    const payin = await api.paykit.payins.create(pixPayin());
    exporter.reset();
    const checkout = trace.getTracer("shop").startSpan("checkout");
    await context.with(trace.setSpan(context.active(), checkout), () =>
      api.paykit.webhooks.confirm({
        kind: "payin",
        id: payin.id,
        data: { id: payin.id, status: "PENDING", paymentMethod: "PIX" },
      } as Parameters<Paykit["webhooks"]["confirm"]>[0]),
    );
    checkout.end();
    const confirm = one("paykit.webhooks.confirm");
    expect(confirm.parentSpanContext?.spanId).toBe(checkout.spanContext().spanId);
    expect(one("paykit.payins.retrieve").parentSpanContext?.spanId).toBe(confirm.spanContext().spanId);
  });
});

describe("the trace from the SDK call to the webhook", () => {
  it("traceparent is injected on every attempt, kept by the mock, and comes back on the delivery as event.traceparent", async () => {
    const deliveries: { body: string; headers: Record<string, string> }[] = [];
    const seen: (string | null)[] = [];
    await using api = await startMock("http", {
      fetch: async (_url, init) => {
        deliveries.push({
          body: String(init.body),
          headers: { ...(init.headers as Record<string, string>) },
        });
        return new Response(null, { status: 204 });
      },
    });
    const secret = generateWebhookSecret();
    const keys = await api.control.createAccount({ balance: 100_000, webhookSecret: secret });
    const paykit = api.client({
      publicKey: keys.publicKey,
      secretKey: keys.secretKey,
      webhookSecret: secret,
      fetch: async (input, init) => {
        // the headers of a URL-and-init call, or of a Request should fetch be handed one
        seen.push(new Headers(input instanceof Request ? input.headers : init?.headers).get("traceparent"));
        return fetch(input, init);
      },
    });
    const payin = await paykit.payins.create(pixPayin({ webhookUrl: "https://merchant.test/webhooks" }));
    const attempt = one("POST /payin");
    expect(seen).toEqual([traceparentOf(attempt.spanContext())]);
    await api.control.payPayin(payin.id);
    await api.control.flushWebhooks();
    const delivery = deliveries.at(-1);
    if (!delivery) throw new Error("no delivery");
    const event = await paykit.webhooks.parse(delivery.body, delivery.headers);
    const [, traceId, spanId] = (event.traceparent ?? "").split("-");
    expect(traceId).toBe(attempt.spanContext().traceId);
    expect(spanId).not.toBe(attempt.spanContext().spanId); // a span of the mock's own
    expect(one("paykit.webhooks.parse").attributes).toMatchObject({ "paykit.payin.id": payin.id });
  });

  it("a registered propagator writes the headers (with tracestate) instead of the built-in W3C writer", async () => {
    const seen: Record<string, string>[] = [];
    propagation.setGlobalPropagator({
      inject: (ctx, carrier: Record<string, string>) => {
        const span = trace.getSpanContext(ctx);
        if (span) {
          carrier.traceparent = traceparentOf(span);
          carrier.tracestate = "shop=1";
        }
      },
      extract: (ctx) => ctx,
      fields: () => ["traceparent", "tracestate"],
    });
    try {
      await using api = await startMock("http");
      const paykit = api.client({
        fetch: async (input, init) => {
          const headers = new Headers(init?.headers);
          seen.push({
            traceparent: headers.get("traceparent") ?? "",
            tracestate: headers.get("tracestate") ?? "",
          });
          return fetch(input, init);
        },
      });
      await paykit.payouts.list();
      expect(seen).toEqual([
        { traceparent: traceparentOf(one("GET /payout").spanContext()), tracestate: "shop=1" },
      ]);
    } finally {
      propagation.disable();
    }
  });
});

describe("no secret or card field in any span", () => {
  it("scans every exported span's names, attributes and events after calls that carry them", async () => {
    const secret = generateWebhookSecret();
    await using api = await startMock("http");
    const paykit = api.client({ webhookSecret: secret });
    await paykit.payins.create(cardPayin());
    await paykit.payins
      .create(cardPayin(card.number, { card: { ...card, cvv: "12" } }))
      .catch(() => undefined);
    await paykit.payouts.create(payout());
    await paykit.webhooks
      .parse("{}", { "webhook-id": "msg_1", "webhook-signature": "v1,AAAA" })
      .catch(() => undefined);
    await paykit.payins.retrieve("pi_missing").catch(() => undefined);
    expect(spans().length).toBeGreaterThanOrEqual(8);
    const values = spans().flatMap((s) => [
      s.name,
      s.status.message ?? "",
      ...Object.values(s.attributes).map(String),
      ...s.events.flatMap((e) => [e.name, ...Object.values(e.attributes ?? {}).map(String)]),
    ]);
    const authorization = btoa(`${api.account.publicKey}:${api.account.secretKey}`);
    for (const long of [api.account.secretKey, authorization, secret, card.number]) {
      expect(values.filter((v) => v.includes(long))).toEqual([]);
    }
    // a CVV is 3 or 4 digits: no value may be one of those sent
    for (const cvv of [card.cvv, "12"]) expect(values.filter((v) => v === cvv)).toEqual([]);
  });
});

describe("the trace shown in docs/observability.md", () => {
  it("is what a lost payout answer and a retried read export, span for span", async () => {
    await using api = await startMock("http");
    await api.control.addFault({ method: "POST", path: "/payout", dropResponse: true });
    const checkout = trace.getTracer("shop").startSpan("withdraw");
    await context.with(trace.setSpan(context.active(), checkout), async () => {
      const created = await api.paykit.payouts.create(payout({ referenceId: "withdraw-42" }));
      await api.control.addFault({ method: "GET", path: "/payout", status: 503 });
      await api.paykit.payouts.list({ referenceId: created.referenceId });
    });
    checkout.end();
    const rendered = renderTrace(spans());
    const doc = readFileSync(new URL("../../../../docs/observability.md", import.meta.url), "utf8");
    const shown = /<!-- trace:begin -->\n```text\n([\s\S]*?)\n```\n<!-- trace:end -->/.exec(doc)?.[1];
    // ids differ per run; the error type of a cut connection depends on where the cut lands
    const stable = (text: string | undefined) =>
      (text ?? "")
        .replace(/\bpo_[0-9A-Za-z]+/g, "po_…")
        .replace(/error\.type=(CONNECTION_RESET|NETWORK_ERROR)/g, "error.type=<cut>");
    expect(stable(rendered)).toBe(stable(shown));
  });
});
