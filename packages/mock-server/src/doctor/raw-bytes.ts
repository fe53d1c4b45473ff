// The doctor's cases for the mistake docs/webhooks.md warns about most: verifying a body parsed and
// written again (`express.json()` then `JSON.stringify(req.body)`, or an object rebuilt by a schema)
// instead of the bytes received. A compact body of ASCII text written in the schema's order comes out of
// `JSON.stringify(JSON.parse(body))` byte for byte, so such a receiver passes every delivery written that
// way; these deliveries are well signed over bytes that a re-serialization changes, as another sender's
// JSON writer would write them (docs/decisions/webhook-body-bytes.md).
import { type Answer, fixForAcknowledged, is2xx, is4xx } from "./hints.js";

/** One way of writing an event's JSON whose bytes `JSON.stringify(JSON.parse(body))` does not give back. */
export interface RawBytesCase {
  /** The case name in the report. */
  name: string;
  /** What is different about the bytes, for the report's "expected". */
  what: string;
  /** The event written so. */
  write(event: object): string;
}

/** The doctor's raw-bytes cases, in the order run. */
export const RAW_BYTES_CASES: readonly RawBytesCase[] = [
  {
    name: "spaced-body",
    what: "its JSON indented, a space after each colon, and a final newline",
    write: (event) => `${JSON.stringify(event, null, 2)}\n`,
  },
  {
    name: "reordered-fields",
    what: "its fields in another order than the schema's (as another writer may send them)",
    write: (event) => JSON.stringify(reversed(event)),
  },
  {
    name: "escaped-unicode",
    what: "non-ASCII text written as \\u escapes (Jo\\u00e3o) and / as \\/",
    write: (event) => asciiJson(event),
  },
];

/** The fix when a receiver refused one of these deliveries. */
export const FIX_RESERIALIZED =
  "verify the bytes received, not a body parsed and written again: JSON.stringify(req.body) after express.json() " +
  "(or an object rebuilt from a schema) writes other bytes than were signed, so the signature cannot match once " +
  'spacing, field order or escapes differ. Read the raw body (Express: express.raw({ type: "application/json" }) ' +
  "on this route, before any express.json(); a fetch handler: await request.text()), verify it, then parse it";

/**
 * The fix for a raw-bytes case the receiver did not acknowledge: the re-serialization itself when the
 * same event written compactly was acknowledged (`compact`) and this one refused with a 4xx; what the
 * answer says otherwise.
 */
export function fixForRawBytes(answer: Answer, compact: Answer, url: string): string {
  if (is4xx(answer) && is2xx(compact))
    return `the receiver acknowledged the compact delivery and refused this well-signed one (${answer.status}): ${FIX_RESERIALIZED}`;
  return fixForAcknowledged(answer, url, FIX_RESERIALIZED);
}

// The fields of every object in reverse order (arrays keep theirs: their order is data).
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .reverse()
      .map(([key, inner]) => [key, reversed(inner)]),
  );
}

/**
 * Compact JSON with every non-ASCII UTF-16 unit as a `\u` escape and `/` as `\/` (both allowed by
 * RFC 8259 and written by PHP's json_encode and Python's json.dumps). A `/` occurs only inside strings.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replaceAll("/", "\\/");
}
