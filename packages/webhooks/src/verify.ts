import { WEBHOOK_HEADERS, WEBHOOK_TOLERANCE_SECONDS } from "@paykit/contract";
import { WebhookVerificationError } from "./errors.js";
import type { RawWebhookBody, WebhookEvent } from "./event.js";
import { bodyToString, fromBase64, utf8 } from "./internal/bytes.js";
import { readHeader, type WebhookHeaders } from "./internal/headers.js";
import { importHmacKey } from "./internal/secret.js";
import { parseWebhook } from "./parse.js";

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /**
   * How far `webhook-timestamp` may be from the receiver's clock, in seconds; older deliveries
   * are refused as possible replays.
   * @default 300
   */
  toleranceSeconds?: number;
  /** The receiver's clock, for tests. @default () => Date.now() */
  now?: () => number;
}

export type { WebhookHeaders } from "./internal/headers.js";

function assertRawBody(body: unknown): asserts body is RawWebhookBody {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer) return;
  const got = body === null ? "null" : Array.isArray(body) ? "an array" : typeof body;
  throw new WebhookVerificationError(
    "BODY_NOT_RAW",
    `The webhook body must be the raw request body (string or bytes), got ${got === "object" ? "a parsed object" : got}. ` +
      "The signature covers the exact bytes sent, so a re-serialized object can never verify: read the raw body " +
      '(Express: express.raw({ type: "application/json" }); web Request: await request.text()).',
  );
}

function requiredHeaders(headers: WebhookHeaders): { id: string; timestamp: string; signature: string } {
  if (headers === null || typeof headers !== "object") {
    throw new WebhookVerificationError(
      "MISSING_HEADERS",
      "No request headers were given: pass the delivery's headers (webhook-id, webhook-timestamp, webhook-signature).",
    );
  }
  const id = readHeader(headers, WEBHOOK_HEADERS.id);
  const timestamp = readHeader(headers, WEBHOOK_HEADERS.timestamp);
  const signature = readHeader(headers, WEBHOOK_HEADERS.signature);
  const missing = [
    id ? undefined : WEBHOOK_HEADERS.id,
    timestamp ? undefined : WEBHOOK_HEADERS.timestamp,
    signature ? undefined : WEBHOOK_HEADERS.signature,
  ].filter((name) => name !== undefined);
  if (missing.length > 0 || !id || !timestamp || !signature) {
    throw new WebhookVerificationError(
      "MISSING_HEADERS",
      `The delivery lacks the header${missing.length > 1 ? "s" : ""} ${missing.join(", ")}: ` +
        "pass the request's headers unchanged (a proxy may strip them), and make sure the endpoint has a signing secret.",
    );
  }
  return { id, timestamp, signature };
}

function checkTimestamp(timestamp: string, toleranceSeconds: number, nowMs: number): void {
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      "INVALID_TIMESTAMP",
      "The webhook-timestamp header is not unix seconds: the delivery was not produced by Paykit.",
    );
  }
  const skew = Math.abs(Math.floor(nowMs / 1000) - Number(timestamp));
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      "TIMESTAMP_OUT_OF_TOLERANCE",
      `The delivery's timestamp is ${skew} s away from this server's clock (tolerance ${toleranceSeconds} s): ` +
        "it may be a replay; if not, check this server's clock (NTP).",
    );
  }
}

/** The `v1,` signatures of the header; Standard Webhooks sends several, space-separated, during key rotation. */
function v1Signatures(header: string): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(" ")) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== "v1") continue;
    const bytes = fromBase64(part.slice(comma + 1));
    if (bytes !== null) out.push(bytes);
  }
  return out;
}

/**
 * Checks that a delivery was signed by Paykit (Standard Webhooks, HMAC-SHA256 over
 * `id.timestamp.body`), is fresh, and reads it as a payin or payout event. Several secrets may be
 * given during a key rotation; any one matching any `v1,` signature of the header is enough.
 * Signatures are compared in constant time by `crypto.subtle.verify`.
 *
 * @param body the raw request body, exactly as received (never a parsed object)
 * @param headers the request headers (web `Headers`, Node's `req.headers` or a record)
 * @param secret the endpoint's signing secret (`whsec_…`), or several during a rotation
 * @throws {WebhookVerificationError} when the delivery cannot be trusted
 * @throws {WebhookParseError} when a correctly signed body is not a payin or payout body
 *
 * @example
 * ```ts
 * const event = await verifyWebhook(rawBody, req.headers, process.env.PAYKIT_WEBHOOK_SECRET!);
 * ```
 */
export async function verifyWebhook(
  body: RawWebhookBody,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  assertRawBody(body);
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      "No webhook secret was given: pass the endpoint's whsec_… secret.",
    );
  }
  // Import every key first, so a malformed secret is reported as such and not as a mismatch.
  const keys = await Promise.all(secrets.map((s) => importHmacKey(s, "verify")));
  const { id, timestamp, signature } = requiredHeaders(headers);
  checkTimestamp(
    timestamp,
    options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS,
    (options.now ?? Date.now)(),
  );
  const signatures = v1Signatures(signature);
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      "NO_SIGNATURE",
      'The webhook-signature header holds no "v1,<base64>" signature: the delivery was not signed by Paykit.',
    );
  }
  const text = bodyToString(body);
  const signed = utf8(`${id}.${timestamp}.${text}`);
  for (const key of keys) {
    for (const candidate of signatures) {
      if (await crypto.subtle.verify("HMAC", key, candidate, signed))
        return parseWebhook(text, { webhookId: id, traceparent: readHeader(headers, "traceparent") });
    }
  }
  throw new WebhookVerificationError(
    "SIGNATURE_MISMATCH",
    "No signature matched: check that the secret is this endpoint's (whsec_…, live vs test) and that the body is " +
      "the raw bytes received, not re-serialized JSON or a body re-encoded by a middleware.",
  );
}
