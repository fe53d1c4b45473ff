/**
 * Sign webhook bodies the way Paykit does, for a merchant's own tests of their endpoint.
 *
 * @packageDocumentation
 * @module @paykit/webhooks/testing
 */
import { WEBHOOK_HEADERS } from "@paykit/contract";
import type { RawWebhookBody } from "./event.js";
import { bodyToString, toBase64, utf8 } from "./internal/bytes.js";
import { importHmacKey } from "./internal/secret.js";

/** Options of {@link signWebhook}. */
export interface SignWebhookOptions {
  /** The endpoint's signing secret (`whsec_…`), or several to sign with each (a rotation). */
  secret: string | readonly string[];
  /** The `webhook-id` header. @default a random `msg_…` id */
  webhookId?: string;
  /** The `webhook-timestamp`, in unix seconds. @default now */
  timestamp?: number;
}

/** Everything a receiver needs to accept a signed delivery: the three Standard Webhooks headers and the content type. */
export type SignedWebhookHeaders = {
  "content-type": "application/json";
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/**
 * Signs a webhook body the way Paykit does, for a merchant's own tests of their endpoint: send the
 * body with these headers (content type included) and the endpoint's `verifyWebhook` accepts it.
 *
 * @example
 * ```ts
 * import { signWebhook } from "@paykit/webhooks/testing";
 * const body = JSON.stringify(payinBody);
 * const headers = await signWebhook(body, { secret: "whsec_…" });
 * await fetch("http://localhost:3000/webhooks/paykit", { method: "POST", body, headers });
 * ```
 */
export async function signWebhook(
  body: RawWebhookBody,
  options: SignWebhookOptions,
): Promise<SignedWebhookHeaders> {
  const webhookId = options.webhookId ?? `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signed = utf8(`${webhookId}.${timestamp}.${bodyToString(body)}`);
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  const signatures: string[] = [];
  for (const secret of secrets) {
    const key = await importHmacKey(secret, "sign");
    signatures.push(`v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, signed)))}`);
  }
  return {
    "content-type": "application/json",
    [WEBHOOK_HEADERS.id]: webhookId,
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.signature]: signatures.join(" "),
  };
}

/** A fresh random signing secret (`whsec_` + base64 of 24 random bytes), for tests. */
export function generateWebhookSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}
