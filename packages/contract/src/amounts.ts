/**
 * The largest amount of one payin or payout, in cents, per payment method (docs/decisions/requests.md). They keep
 * every balance sum an exact integer (a JavaScript number is exact up to 2^53 − 1 cents): an account
 * would need about 900,000 payins at the maximum to get there. BOLETO's is the digitable line's 10-digit
 * amount field.
 */
export const MAX_AMOUNT_CENTS = {
  /** R$ 100.000.000,00 */
  PIX: 10_000_000_000,
  /** R$ 99.999.999,99: what a boleto's 10-digit amount field can encode. */
  BOLETO: 9_999_999_999,
  /** R$ 1.000.000,00 */
  CREDIT_CARD: 100_000_000,
  /** R$ 100.000.000,00 */
  OPEN_FINANCE: 10_000_000_000,
  /** R$ 100.000.000,00 (the account's payout limits are usually far lower). */
  PAYOUT: 10_000_000_000,
} as const;
