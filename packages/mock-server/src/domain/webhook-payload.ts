// The bytes of a webhook delivery's body (docs/decisions/webhook-body-bytes.md): JSON with a space after
// each `:` and `,`, and every non-ASCII character as a `\u` escape, as Python's json.dumps writes by
// default. A receiver that verifies `JSON.stringify(JSON.parse(body))` instead of the bytes it received
// then fails against the mock as it would against any sender whose JSON writer is not JavaScript's:
// compact ASCII JSON in the schema's order is the one body such a receiver gets right by accident.

/** The JSON text a delivery of `body` sends and signs. */
export function webhookPayload(body: unknown): string {
  return write(body) ?? "null";
}

// One value as JSON; undefined for what JSON.stringify leaves out (undefined, functions, symbols).
function write(value: unknown): string | undefined {
  const json =
    value !== null && typeof value === "object" && "toJSON" in value
      ? (value as { toJSON(): unknown }).toJSON()
      : value;
  if (json === null || typeof json !== "object") {
    const text = JSON.stringify(json);
    return typeof json === "string" ? escapeNonAscii(text as string) : text;
  }
  if (Array.isArray(json)) return `[${json.map((item) => write(item) ?? "null").join(", ")}]`;
  const fields: string[] = [];
  for (const [key, inner] of Object.entries(json)) {
    const text = write(inner);
    if (text !== undefined) fields.push(`${escapeNonAscii(JSON.stringify(key))}: ${text}`);
  }
  return `{${fields.join(", ")}}`;
}

// Each UTF-16 unit above 0x7f as `\uXXXX` (a character outside the BMP as its surrogate pair).
function escapeNonAscii(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
