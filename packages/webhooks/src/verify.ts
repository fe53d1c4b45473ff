import { WEBHOOK_HEADERS, WEBHOOK_TOLERANCE_SECONDS } from "@paykit/contract";
import { WebhookVerificationError } from "./errors.js";
import type { RawWebhookBody, WebhookEvent } from "./event.js";
import { bodyToString, fromBase64, utf8 } from "./internal/bytes.js";
import { readHeader, type WebhookHeaders } from "./internal/headers.js";
import { importHmacKey, requireSecrets, type WebhookSecretInput } from "./internal/secret.js";
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
export type { WebhookSecretInput } from "./internal/secret.js";

function assertRawBody(body: unknown): asserts body is RawWebhookBody {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer) return;
  const got = body === null ? "null" : Array.isArray(body) ? "an array" : typeof body;
  throw new WebhookVerificationError(
    "BODY_NOT_RAW",
    `The webhook body must be the raw request body (string or bytes), got ${got === "object" ? "a parsed object" : got}. ` +
      "A JSON body parser ran before this code (Express: express.json()); the signature covers the exact bytes sent, " +
      'so a re-serialized object can never verify: read the raw body (Express: express.raw({ type: "application/json" }) ' +
      "on this route; Fastify: a raw content-type parser; web Request: await request.text()).",
  );
}

function assertNotEmpty(body: RawWebhookBody): void {
  const length = typeof body === "string" ? body.length : body.byteLength;
  if (length > 0) return;
  throw new WebhookVerificationError(
    "EMPTY_BODY",
    "The webhook body is empty: the raw body was not captured. A body parser may have consumed the stream " +
      '(Express: mount express.raw({ type: "application/json" }) on this route, before any express.json()), ' +
      "or the request was read twice.",
  );
}

/** Paykit always sends `application/json` (a charset parameter is fine); anything else is not a delivery. */
function assertJsonContentType(headers: WebhookHeaders): void {
  if (headers === null || typeof headers !== "object") return;
  const value = readHeader(headers, "content-type");
  if (value === undefined) return;
  const mediaType = value.split(";")[0]?.trim().toLowerCase();
  if (mediaType === "application/json") return;
  throw new WebhookVerificationError(
    "WRONG_CONTENT_TYPE",
    `The delivery's content-type is "${mediaType?.slice(0, 100) ?? ""}", not application/json: Paykit sends every ` +
      "webhook as JSON. If a proxy or a test sends this request, make it send content-type: application/json " +
      "(signWebhook's headers include it).",
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
  const nowSeconds = Math.floor(nowMs / 1000);
  const sent = Number(timestamp);
  const skew = nowSeconds - sent;
  if (Math.abs(skew) > toleranceSeconds) {
    const direction = skew > 0 ? "behind" : "ahead of";
    const sentAt = new Date(sent * 1000).toISOString();
    const nowAt = new Date(nowSeconds * 1000).toISOString();
    throw new WebhookVerificationError(
      "TIMESTAMP_OUT_OF_TOLERANCE",
      `The delivery's webhook-timestamp (${sentAt}) is ${Math.abs(skew)} s ${direction} this server's clock ` +
        `(${nowAt}); at most ${toleranceSeconds} s is tolerated. ` +
        (skew > 0
          ? "An old delivery may be a replay: refuse it. If deliveries are fresh, this server's clock runs fast: check NTP."
          : "This server's clock runs slow (or the sender's fast): check NTP on this server."),
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
 * @param secret the account's webhook signing secret (`whsec_…`), or several during a rotation; a missing
 *   or empty one is a `SECRET_MISSING` error, never "verification off"
 * @throws {WebhookVerificationError} when the delivery cannot be trusted
 * @throws {WebhookParseError} when a correctly signed body is not a payin or payout body
 *
 * @example
 * ```ts
 * const event = await verifyWebhook(rawBody, req.headers, process.env.PAYKIT_WEBHOOK_SECRET);
 * ```
 */
export async function verifyWebhook(
  body: RawWebhookBody,
  headers: WebhookHeaders,
  secret: WebhookSecretInput,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  // The secret first: a missing one must fail the same way whatever the request looks like.
  const secrets = requireSecrets(secret);
  // Import every key first, so a malformed secret is reported as such and not as a mismatch.
  const keys = await Promise.all(secrets.map((s) => importHmacKey(s, "verify")));
  assertRawBody(body);
  assertNotEmpty(body);
  const { id, timestamp, signature } = requiredHeaders(headers);
  assertJsonContentType(headers);
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
