import { WEBHOOK_HEADERS } from "@paykit/contract";
import { WebhookParseError } from "./errors.js";
import type { WebhookEvent } from "./event.js";
import { requireSecrets, type WebhookSecretInput } from "./internal/secret.js";
import { parseWebhook } from "./parse.js";
import { type VerifyWebhookOptions, verifyWebhook } from "./verify.js";

/** Options of {@link parseWebhookRequest}. */
export interface ParseWebhookRequestOptions extends VerifyWebhookOptions {
  /**
   * The account's webhook signing secret (`whsec_…`), or several during a rotation. Required: without
   * it (`undefined`, `""`, whitespace) the call throws `WebhookVerificationError` `SECRET_MISSING`, so an
   * unset environment variable never switches verification off.
   */
  secret?: WebhookSecretInput;
  /**
   * Reads the body without checking its signature, and only when asked for by name (tests, local tools).
   * Nothing then proves the delivery came from Paykit: confirm the resource with the API before acting.
   * @default false
   */
  allowUnsigned?: boolean;
}

/**
 * Reads a web-standard `Request` (Hono, Next.js route handlers, Bun, Deno, workers) as a verified
 * webhook event. The body is read once, as text, so the bytes signed are the bytes checked.
 *
 * @throws {WebhookVerificationError} `SECRET_MISSING` without a secret (unless `allowUnsigned`), or when
 *   the delivery cannot be trusted
 * @throws {WebhookParseError} when the body was already read, or a correctly signed body is not a
 *   payin or payout body
 *
 * @example
 * ```ts
 * export async function POST(request: Request) {
 *   const event = await parseWebhookRequest(request, { secret: process.env.PAYKIT_WEBHOOK_SECRET });
 *   return new Response(null, { status: 204 });
 * }
 * ```
 */
export async function parseWebhookRequest(
  request: Request,
  options: ParseWebhookRequestOptions = {},
): Promise<WebhookEvent> {
  const { secret, allowUnsigned = false, ...verifyOptions } = options;
  // Refuse a missing secret before reading anything: the mistake is in configuration, not in the request.
  if (!allowUnsigned) requireSecrets(secret);
  if (request.bodyUsed) {
    throw new WebhookParseError(
      "BODY_ALREADY_READ",
      "The request body was already read (e.g. by request.json() or a body parser): pass the Request before reading it.",
    );
  }
  const body = await request.text();
  if (!allowUnsigned) return verifyWebhook(body, request.headers, secret, verifyOptions);
  const webhookId = request.headers.get(WEBHOOK_HEADERS.id) ?? undefined;
  const traceparent = request.headers.get("traceparent") ?? undefined;
  return parseWebhook(body, { ...(webhookId === undefined ? {} : { webhookId }), traceparent });
}
