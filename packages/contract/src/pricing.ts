import type { PaymentMethod } from "./status.js";

/**
 * How the service prices a payin method: a percentage in basis points (99 = 0.99 %) or a flat fee in
 * cents. Basis points keep the arithmetic in integers, so no float ever touches money.
 */
export type PayinFeeRule = { percentBps: number } | { flatCents: number };

/**
 * Fees and reserve of an account (docs/decisions/fees-and-reserve.md; the mock's defaults, per account).
 */
export interface FeeSchedule {
  /** Fee of a payin, per method. */
  payin: Record<PaymentMethod, PayinFeeRule>;
  /** Flat fee of a payout, in cents. @default 100 */
  payoutFlatCents: number;
  /** Share of a card payin's net amount held as reserve, in basis points. @default 1000 (10 %) */
  cardReserveBps: number;
  /** How long a card reserve is held, in days. @default 30 */
  cardReserveDays: number;
}

/** The default fee schedule: PIX and OPEN_FINANCE 0.99 %, BOLETO R$ 3,49, CREDIT_CARD 3.99 %. */
export const DEFAULT_FEES: FeeSchedule = {
  payin: {
    PIX: { percentBps: 99 },
    OPEN_FINANCE: { percentBps: 99 },
    BOLETO: { flatCents: 349 },
    CREDIT_CARD: { percentBps: 399 },
  },
  payoutFlatCents: 100,
  cardReserveBps: 1000,
  cardReserveDays: 30,
};

/** `amount × bps / 10000` in cents, rounded half-up to the cent, in integer arithmetic. */
export function percentOf(amountCents: number, bps: number): number {
  return Number((BigInt(amountCents) * BigInt(bps) + 5000n) / 10000n);
}

/** The fee of a payin of `amountCents` paid by `method`, never more than the amount itself. */
export function payinFee(
  method: PaymentMethod,
  amountCents: number,
  fees: FeeSchedule = DEFAULT_FEES,
): number {
  const rule = fees.payin[method];
  const fee = "flatCents" in rule ? rule.flatCents : percentOf(amountCents, rule.percentBps);
  return Math.min(fee, amountCents);
}

/** Per-payout amount limits by time of day, in cents (docs/decisions/payout-limits.md). */
export interface PayoutLimits {
  /** Largest payout from 20:00 (inclusive) to 06:00 (exclusive), São Paulo time. @default 100000 */
  nightMaxCents: number;
  /** Largest payout during the day. @default 10000000 */
  dayMaxCents: number;
}

/** The default payout limits: R$ 1.000 at night, R$ 100.000 by day. */
export const DEFAULT_PAYOUT_LIMITS: PayoutLimits = { nightMaxCents: 100_000, dayMaxCents: 10_000_000 };

/** The hour (0-23) in America/Sao_Paulo at `at`. */
export function saoPauloHour(at: Date): number {
  const hour = new Intl.DateTimeFormat("en-US", {
    timeZone: "America/Sao_Paulo",
    hour: "numeric",
    hourCycle: "h23",
  }).format(at);
  return Number(hour);
}

/** Whether `at` falls in the night window, 20:00 inclusive to 06:00 exclusive, São Paulo time. */
export function isPayoutNightTime(at: Date): boolean {
  const hour = saoPauloHour(at);
  return hour >= 20 || hour < 6;
}

/** The largest payout allowed at `at`, in cents. */
export function payoutLimitAt(at: Date, limits: PayoutLimits = DEFAULT_PAYOUT_LIMITS): number {
  return isPayoutNightTime(at) ? limits.nightMaxCents : limits.dayMaxCents;
}
