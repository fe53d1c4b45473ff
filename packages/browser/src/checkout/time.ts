import type { CheckoutPayin } from "./types.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** How long after creation a PENDING payin expires (docs/payins.md, "PENDING → EXPIRED"). */
export const EXPIRY_AFTER_MS: Readonly<Record<string, number>> = { PIX: HOUR_MS, BOLETO: 3 * DAY_MS };

/**
 * When the payin stops being payable, in epoch ms: `expiresAt` if it is a valid date, else `createdAt` plus the
 * documented expiry of its method (an unreadable `expiresAt` does not turn the countdown off); `undefined` for
 * methods that do not expire or a payin without a valid date.
 */
export function expiryOf(payin: CheckoutPayin, expiresAt?: Date | string): number | undefined {
  // The first finite one; a method without a documented expiry adds undefined, which makes NaN.
  return [
    new Date(expiresAt || Number.NaN).getTime(),
    Date.parse(payin.createdAt!) + EXPIRY_AFTER_MS[payin.paymentMethod]!,
  ].find(Number.isFinite);
}

/** A countdown's text: `m:ss` under an hour, `h:mm:ss` from one hour, never negative. */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number) => String(n).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const rest = `${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  return hours ? `${hours}:${rest}` : rest;
}

// FEBRABAN's due-date factor counts days from 1997-10-07 and starts again at 1000 every 9000 days.
const FACTOR_BASE = Date.UTC(1997, 9, 7);
const FACTOR_CYCLE_DAYS = 9000;

/**
 * The due date a boleto's 47-digit line encodes (its factor, digits 34 to 37), as a UTC midnight in epoch ms:
 * of the dates the factor stands for, the one nearest `near` (the payin's creation).
 */
export function boletoDueDate(line: string, near: number): number | undefined {
  const digits = line.replace(/\D/g, "");
  const factor = Number(digits.slice(33, 37));
  if (digits.length !== 47 || factor < 1000) return undefined;
  const first = FACTOR_BASE + factor * DAY_MS;
  const cycles = Math.max(0, Math.round((near - first) / (FACTOR_CYCLE_DAYS * DAY_MS)));
  return first + cycles * FACTOR_CYCLE_DAYS * DAY_MS;
}

/** The digitable line in the groups printed on a boleto: `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEE…`. */
export function formatBoletoLine(line: string): string {
  return line.replace(/^(\d{5})(\d{5})(\d{5})(\d{6})(\d{5})(\d{6})(\d)(\d{14})$/, "$1.$2 $3.$4 $5.$6 $7 $8");
}
