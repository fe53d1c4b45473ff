// The trace follows the payment to the merchant's webhook handler: the checkout's SDK call sends a
// traceparent, the mock delivers the webhook in the same trace, and the recipe's handler span (in
// src/trace.ts) continues it. Express in this process, with sdk-trace-base's in-memory exporter.
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createMockServer, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExpressApp } from "../src/express.js";
import { createReceiver } from "../src/receiver.js";
import { waitFor } from "./harness.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => void trace.setGlobalTracerProvider(provider));
afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

describe("the checkout's trace reaches the webhook handler (Express)", () => {
  it("the handler's span is in the trace of payins.create, a child of the mock's delivery span", async () => {
    const mock = await createMockServer({ autoAdvance: false });
    const secret = generateWebhookSecret();
    const keys = await mock.control.createAccount({ webhookSecret: secret });
    const config = { ...keys, baseUrl: mock.url, webhookSecret: secret };
    const server = createExpressApp(createReceiver(config)).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const paykit = new Paykit(config);
      const payin = await paykit.payins.create(
        samplePayin("PIX", { webhookUrl: `http://127.0.0.1:${port}/webhooks/paykit` }),
      );
      await mock.control.payPayin(payin.id);
      const handled = await waitFor(
        async () => exporter.getFinishedSpans().find((s) => s.name === "paykit webhook payin"),
        "the handler's span",
      );
      const created = exporter.getFinishedSpans().find((s) => s.name === "paykit.payins.create");
      expect(created).toBeDefined();
      expect(handled.spanContext().traceId).toBe(created?.spanContext().traceId);
      expect(handled.attributes["paykit.payin.id"]).toBe(payin.id);
      // its parent is the mock's span for this delivery, not one of this process's spans
      const local = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().spanId));
      expect(handled.parentSpanContext?.isRemote).toBe(true);
      expect(local.has(handled.parentSpanContext?.spanId ?? "")).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      await mock.close();
    }
  });
});
