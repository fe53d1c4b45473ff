/** The prefix of a payin id. */
export const PAYIN_ID_PREFIX = "pi_";
/** The prefix of a payout id. */
export const PAYOUT_ID_PREFIX = "po_";

/** Prefixes a secret or public key may carry: live keys, or the mock's test keys. */
export const KEY_PREFIXES = {
  publicKey: ["pk_live_", "pk_test_"],
  secretKey: ["sk_live_", "sk_test_"],
} as const;

/** The mode a key belongs to, from its prefix, or null when it is not a key of that kind. */
export function keyMode(key: string, kind: "publicKey" | "secretKey"): "live" | "test" | null {
  const [live, test] = KEY_PREFIXES[kind];
  if (key.startsWith(live)) return "live";
  if (key.startsWith(test)) return "test";
  return null;
}
