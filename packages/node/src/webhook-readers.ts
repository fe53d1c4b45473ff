// `@paykit/webhooks`' readers, re-exported so that a receiver needs `@paykit/node` alone. They load the
// webhooks package (and with it the contract's schemas) on first call, like `paykit.webhooks.parse`:
// importing the client stays fast for code that never reads a webhook.
import type {
  ParseWebhookRequestOptions,
  RawWebhookBody,
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookHeaders,
  WebhookSecretInput,
} from "@paykit/webhooks";

/**
 * Reads a web-standard `Request` (Hono, Next.js route handlers, Bun, Deno, workers) as a verified
 * webhook event: `@paykit/webhooks`' `parseWebhookRequest`. The body is read once, as text.
 * @throws {WebhookVerificationError} `SECRET_MISSING` without a secret, or when the delivery cannot be trusted
 * @throws {WebhookParseError} when the body was already read, or a signed body is not a payin or payout
 * @example
 * const event = await parseWebhookRequest(request, { secret: process.env.PAYKIT_WEBHOOK_SECRET });
 */
export async function parseWebhookRequest(
  request: Request,
  options?: ParseWebhookRequestOptions,
): Promise<WebhookEvent> {
  const webhooks = await import("@paykit/webhooks");
  return webhooks.parseWebhookRequest(request, options);
}

/**
 * Verifies a delivery's raw body against its `webhook-*` headers and reads it as a typed event:
 * `@paykit/webhooks`' `verifyWebhook` (`paykit.webhooks.parse` does the same with the client's secret).
 * @throws {WebhookVerificationError} when the delivery cannot be trusted, or without a secret
 * @throws {WebhookParseError} when a correctly signed body is not a payin or payout body
 */
export async function verifyWebhook(
  body: RawWebhookBody,
  headers: WebhookHeaders,
  secret: WebhookSecretInput,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  const webhooks = await import("@paykit/webhooks");
  return webhooks.verifyWebhook(body, headers, secret, options);
}
