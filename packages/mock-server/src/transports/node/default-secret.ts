import { createHmac } from "node:crypto";

// Names what the derived bytes are for, so the same keys never yield this secret in another use.
const LABEL = "paykit-mock default account webhook secret v1";

/**
 * The default account's webhook signing secret for given keys: `whsec_` and 24 bytes of
 * HMAC-SHA256(secretKey, label + publicKey). The same `--default-keys` give the same secret at every
 * start, so the `.env` of a receiver written once stays valid; anyone who can derive it already holds
 * the account's secret key, which controls the account anyway.
 */
export function defaultWebhookSecret(keys: { publicKey: string; secretKey: string }): string {
  const mac = createHmac("sha256", keys.secretKey).update(`${LABEL}\n${keys.publicKey}`).digest();
  return `whsec_${mac.subarray(0, 24).toString("base64")}`;
}
