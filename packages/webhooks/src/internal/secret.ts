import { WebhookVerificationError } from "../errors.js";
import { fromBase64 } from "./bytes.js";

/** The prefix of a Standard Webhooks signing secret. */
export const SECRET_PREFIX = "whsec_";

/**
 * The HMAC key bytes of a `whsec_…` secret. Diagnoses the usual copy-paste mistakes
 * (surrounding whitespace, a missing prefix) instead of failing later as a signature mismatch.
 */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      "The webhook secret is empty: pass the endpoint's signing secret (whsec_…) from the Paykit dashboard.",
    );
  }
  if (/\s/.test(secret)) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      "The webhook secret contains whitespace (often a trailing newline from an env file): trim it and pass exactly the whsec_… value.",
    );
  }
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      `The webhook secret must start with "${SECRET_PREFIX}": pass the endpoint's signing secret, not an API key.`,
    );
  }
  const key = fromBase64(secret.slice(SECRET_PREFIX.length));
  if (key === null || key.length === 0) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      `The webhook secret is not "${SECRET_PREFIX}" followed by base64: copy it again from the Paykit dashboard.`,
    );
  }
  return key;
}

/** Imports the secret as a WebCrypto HMAC-SHA256 key for `usage`. */
export function importHmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secretKeyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}
