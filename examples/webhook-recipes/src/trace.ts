// Continues the trace of the checkout that started the payment: the mock (and the service) send each
// delivery with a W3C `traceparent` in the trace of the API call that created the payin or payout, and
// the event carries it as `event.traceparent`. With no tracer provider registered, this is a no-op.
import { context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { WebhookEvent } from "@paykit/webhooks";

const tracer = trace.getTracer("paykit-webhook-recipes");

/** Runs `handle` in a span whose parent is the delivery's span (from `event.traceparent`, when present). */
export function inDeliveryTrace<T>(event: WebhookEvent, handle: () => Promise<T>): Promise<T> {
  let parent = context.active();
  // parseWebhook* only sets traceparent when it has the W3C shape: version-traceId-spanId-flags
  const [, traceId, spanId, flags] = event.traceparent?.split("-") ?? [];
  if (traceId && spanId && flags) {
    parent = trace.setSpanContext(parent, {
      traceId,
      spanId,
      traceFlags: Number.parseInt(flags, 16),
      isRemote: true,
    });
  }
  const name = `paykit webhook ${event.kind}`;
  const attributes = { "paykit.webhook.id": event.webhookId ?? "", [`paykit.${event.kind}.id`]: event.id };
  return tracer.startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span: Span) => {
    try {
      return await handle();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
