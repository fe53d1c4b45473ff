import { randomString } from "./ids.js";

/** The W3C trace context of the API request that created a payin or payout. */
export interface TraceContext {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 2 hex digits (`01`: sampled). */
  flags: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const HEX = "0123456789abcdef";

/** Reads a `traceparent` header (version 00); null when absent or malformed (all-zero ids are invalid). */
export function parseTraceparent(value: string | undefined): TraceContext | null {
  if (value === undefined) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return null;
  return { traceId: match[1]!, flags: match[3]! };
}

/** A `traceparent` in the given trace with a fresh span id of the mock's own (one per delivery attempt). */
export function childTraceparent(context: TraceContext): string {
  let spanId = randomString(16, HEX);
  if (/^0+$/.test(spanId)) spanId = "0000000000000001";
  return `00-${context.traceId}-${spanId}-${context.flags}`;
}
