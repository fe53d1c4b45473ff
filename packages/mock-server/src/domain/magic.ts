import type { KnownErrorCode } from "@paykit/contract";

/** What the mock acquirer decides for a card number (docs/decisions/magic-values.md). */
export type CardOutcome =
  | { kind: "status"; status: "APPROVED" | "REFUSED" | "PENDING_3DS" }
  | { kind: "error"; code: KnownErrorCode; message: string };

/** The magic card numbers; any other Luhn-valid number (or a token) is approved. */
export const MAGIC_CARDS: Readonly<Record<string, CardOutcome>> = {
  "4000000000000002": { kind: "status", status: "REFUSED" },
  "4000000000003220": { kind: "status", status: "PENDING_3DS" },
  "4000000000009995": {
    kind: "error",
    code: "PAYER_LIMIT_REJECTED",
    message: "the card's limit is insufficient for this amount",
  },
  "4000000000000127": { kind: "error", code: "INVALID_CVV", message: "the card's security code is wrong" },
  "4000000000000119": {
    kind: "error",
    code: "PROVIDER_ERROR",
    message: "the acquirer failed temporarily; try again later",
  },
  "4100000000000019": {
    kind: "error",
    code: "REJECTED_BY_RISK",
    message: "the payment was denied by the antifraud check",
  },
};

/** The outcome of a card payin by its number (`undefined` for a token: approved). */
export function cardOutcome(number: string | undefined): CardOutcome {
  return (number !== undefined ? MAGIC_CARDS[number] : undefined) ?? { kind: "status", status: "APPROVED" };
}

/** A payer whose e-mail ends with this domain is denied by antifraud, whatever the method. */
export const RISK_EMAIL_SUFFIX = "@risk.test";

/** The PIX keys whose payouts settle badly (docs/decisions/magic-values.md). */
export const MAGIC_PIX_KEYS = {
  /** Created, then FAILED with PROVIDER_REJECTED at the step after PROCESSING. */
  reject: "reject@bank.test",
  /** Created, then REFUSED at the step after PROCESSING. */
  refuse: "refuse@bank.test",
  /** 502 PROVIDER_REJECTED at creation; the payout exists FAILED and its amount is returned. */
  rejectNow: "reject-now@bank.test",
  /** The one well-formed key the open directory does not find: 400 INVALID_PIX_KEY. */
  notFound: "notfound@bank.test",
} as const;

/** A payout of exactly this amount answers 502 TEMPORARY_UNAVAILABLE and is not created. */
export const TEMPORARY_UNAVAILABLE_AMOUNT = 99_999;
