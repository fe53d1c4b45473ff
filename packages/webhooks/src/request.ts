import { WEBHOOK_HEADERS } from "@paykit/contract";
import { WebhookParseError } from "./errors.js";
import type { WebhookEvent } from "./event.js";
import { parseWebhook } from "./parse.js";
import { type VerifyWebhookOptions, verifyWebhook } from "./verify.js";

/** Options of {@link parseWebhookRequest}. */
export interface ParseWebhookRequestOptions extends VerifyWebhookOptions {
  /**
   * The endpoint's signing secret (`whsec_…`), or several during a rotation. Without it the body is
   * parsed but nothing proves it came from Paykit: confirm the resource with the API before acting.
   */
  secret?: string | readonly string[];
}

/**
 * Reads a web-standard `Request` (Hono, Next.js route handlers, Bun, Deno, workers) as a verified
 * webhook event. The body is read once, as text, so the bytes signed are the bytes checked.
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
  if (request.bodyUsed) {
    throw new WebhookParseError(
      "BODY_ALREADY_READ",
      "The request body was already read (e.g. by request.json() or a body parser): pass the Request before reading it.",
    );
  }
  const body = await request.text();
  const { secret, ...verifyOptions } = options;
  if (secret !== undefined) return verifyWebhook(body, request.headers, secret, verifyOptions);
  const webhookId = request.headers.get(WEBHOOK_HEADERS.id) ?? undefined;
  const traceparent = request.headers.get("traceparent") ?? undefined;
  return parseWebhook(body, { ...(webhookId === undefined ? {} : { webhookId }), traceparent });
}
