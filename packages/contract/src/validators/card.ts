// Card numbers are checked by length and Luhn only (docs/decisions/card.md). The library's
// isValidCreditCard is not used: it also takes masks and refuses repeated-digit numbers, which
// our rule does not.
const CARD_NUMBER = /^\d{13,19}$/;
const MONTH = /^(0[1-9]|1[0-2])$/;
const YEAR = /^\d{4}$/;
const CVV = /^\d{3,4}$/;

/** Whether a string of digits passes the Luhn (mod 10) check that guards card numbers against typos. */
export function isLuhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Whether `value` is a card number a card payin can carry: 13-19 digits, no spaces, Luhn-valid. */
export function isValidCardNumber(value: string): boolean {
  return CARD_NUMBER.test(value) && isLuhnValid(value);
}

// A card is good through the last day of its expiry month, wherever its holder is. Reading the
// month at UTC-12 (the last time zone to leave a month) never refuses a card the issuer would
// still accept somewhere.
const LATEST_TIME_ZONE_OFFSET_MS = 12 * 60 * 60 * 1000;

/**
 * Whether a card's expiry date is still good at `now`: month `01`-`12`, a 4-digit year, and not
 * before the current month (a card expiring this month is still valid).
 *
 * @param now - The moment to check against. @default new Date()
 */
export function isValidExpiry(month: string, year: string, now: Date = new Date()): boolean {
  if (!MONTH.test(month) || !YEAR.test(year)) return false;
  const today = new Date(now.getTime() - LATEST_TIME_ZONE_OFFSET_MS);
  const current = today.getUTCFullYear() * 12 + today.getUTCMonth();
  return Number(year) * 12 + (Number(month) - 1) >= current;
}

/** Whether `value` is a card security code (CVV/CVC): 3 or 4 digits. */
export function isValidCvv(value: string): boolean {
  return CVV.test(value);
}

/** A card brand Paykit can tell from the number's prefix. */
export type CardBrand = "visa" | "mastercard" | "amex" | "elo" | "hipercard" | "unknown";

// Elo and Hipercard BINs overlap Visa's 4 and Mastercard's 5, so they are matched first.
// Ranges are inclusive, over the first 6 digits.
const ELO_BIN_RANGES: ReadonlyArray<readonly [number, number]> = [
  [401178, 401179],
  [431274, 431274],
  [438935, 438935],
  [451416, 451416],
  [457393, 457393],
  [457631, 457632],
  [504175, 504175],
  [506699, 506778],
  [509000, 509999],
  [627780, 627780],
  [636297, 636297],
  [636368, 636368],
  [650031, 650033],
  [650035, 650051],
  [650405, 650439],
  [650485, 650538],
  [650541, 650598],
  [650700, 650718],
  [650720, 650727],
  [650901, 650920],
  [651652, 651679],
  [655000, 655019],
  [655021, 655058],
];
const HIPERCARD_BINS: readonly string[] = ["606282", "637095", "637568", "637599", "637609", "637612"];

/** The brand of a card number, from its issuer prefix (BIN); `"unknown"` when no rule matches. */
export function cardBrand(number: string): CardBrand {
  if (!/^\d{6,}$/.test(number)) return "unknown";
  const bin = Number(number.slice(0, 6));
  if (ELO_BIN_RANGES.some(([low, high]) => bin >= low && bin <= high)) return "elo";
  if (HIPERCARD_BINS.includes(number.slice(0, 6)) || number.startsWith("3841")) return "hipercard";
  if (/^3[47]/.test(number)) return "amex";
  const four = Number(number.slice(0, 4));
  if (/^5[1-5]/.test(number) || (four >= 2221 && four <= 2720)) return "mastercard";
  if (number.startsWith("4")) return "visa";
  return "unknown";
}

/** The last four digits of a card number: all a Paykit package or the mock may keep of it. */
export function cardLast4(number: string): string {
  return number.slice(-4);
}
