import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
/** The attributes worth reading in a rendering, in this order (url.full and server.* are left out). */
const SHOWN = [
  "paykit.reference_id",
  "paykit.payment_method",
  "paykit.payin.id",
  "paykit.payout.id",
  "paykit.reconcile.reason",
  "paykit.reconcile.found",
  "paykit.error.code",
  "http.request.method",
  "url.template",
  "http.request.resend_count",
  "http.response.status_code",
  "error.type",
];

/** A text rendering of one trace: one line per span, children indented under their parent, in start order. */
export function renderTrace(spans: readonly ReadableSpan[]): string {
  const byStart = [...spans].sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
  const ids = new Set(byStart.map((s) => s.spanContext().spanId));
  const lines: string[] = [];
  const walk = (span: ReadableSpan, prefix: string, last: boolean, root: boolean) => {
    const attributes = SHOWN.filter((k) => span.attributes[k] !== undefined)
      .map((k) => `${k}=${span.attributes[k]}`)
      .join(" ");
    const events = span.events.map((e) => ` +${e.name}`).join("");
    const branch = root ? "" : last ? "└─ " : "├─ ";
    lines.push(`${prefix}${branch}${span.name} [${KINDS[span.kind]}] ${attributes}${events}`.trimEnd());
    const children = byStart.filter((c) => c.parentSpanContext?.spanId === span.spanContext().spanId);
    const childPrefix = root ? prefix : prefix + (last ? "   " : "│  ");
    for (const [i, child] of children.entries()) walk(child, childPrefix, i === children.length - 1, false);
  };
  for (const root of byStart.filter((s) => !s.parentSpanContext || !ids.has(s.parentSpanContext.spanId))) {
    walk(root, "", true, true);
  }
  return lines.join("\n");
}
