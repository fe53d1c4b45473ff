import { WebhookVerificationError } from "../errors.js";
import { fromBase64 } from "./bytes.js";

/** The prefix of a Standard Webhooks signing secret. */
export const SECRET_PREFIX = "whsec_";

/** A receiver's secret as configured: one, several during a rotation, or (by mistake) none. */
export type WebhookSecretInput = string | readonly string[] | null | undefined;

const WHERE_FROM =
  "Pass the account's webhook secret (whsec_…): the Paykit dashboard shows it, and paykit-mock prints it at start. " +
  "Read it from your configuration (for example process.env.PAYKIT_WEBHOOK_SECRET) and make sure that is set where this code runs.";

/**
 * The secrets to verify with. A missing secret is an error and never means "verification off": one unset
 * environment variable must not let forged deliveries through (docs/decisions/webhooks.md).
 */
export function requireSecrets(secret: WebhookSecretInput): string[] {
  const given = typeof secret === "string" ? [secret] : Array.isArray(secret) ? [...secret] : [];
  const secrets = given.filter((s) => typeof s === "string" && s.trim() !== "");
  if (secrets.length === 0) {
    const what =
      secret === undefined || secret === null
        ? "No webhook secret was given"
        : typeof secret === "string"
          ? "The webhook secret is empty"
          : "The list of webhook secrets holds no secret";
    throw new WebhookVerificationError(
      "SECRET_MISSING",
      `${what}, so the delivery cannot be verified. ${WHERE_FROM} To read a delivery without verifying it ` +
        "(tests only), ask for it by name with { allowUnsigned: true }.",
    );
  }
  return secrets;
}

/**
 * The HMAC key bytes of a `whsec_…` secret. Diagnoses the usual copy-paste mistakes
 * (surrounding whitespace, a missing or doubled prefix) instead of failing later as a signature mismatch.
 */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (typeof secret !== "string" || secret.trim().length === 0) requireSecrets(undefined);
  if (/\s/.test(secret)) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      "The webhook secret contains whitespace (often a trailing newline from an env file): trim it and pass exactly the whsec_… value.",
    );
  }
  if (secret.startsWith(`${SECRET_PREFIX}${SECRET_PREFIX}`)) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      `The webhook secret starts with "${SECRET_PREFIX}" twice: the value already carries the prefix, so do not add it again.`,
    );
  }
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new WebhookVerificationError(
      "INVALID_SECRET",
      `The webhook secret must start with "${SECRET_PREFIX}": pass the account's webhook signing secret as shown, ` +
        "prefix included (not an API key, and not the base64 part alone).",
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
