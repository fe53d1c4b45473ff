/** The data a BOLETO payin's bank slip encodes: issuing bank, amount, due date and the bank's free field. */
export interface BoletoFields {
  /** The issuing bank's 3-digit COMPE code (`"001"`, `"237"`, …). */
  bankCode: string;
  /** Amount in integer cents of BRL, 1 to 9999999999 (the 10 digits the line holds). */
  amountCents: number;
  /** Due date: a `YYYY-MM-DD` string, or a `Date` read by its UTC calendar day; 2000-07-03 or later. */
  dueDate: Date | string;
  /** The bank's 25-digit free field (agreement, our number, …), opaque to Paykit. */
  freeField: string;
}

/** A boleto's 47-digit digitable line read back into its fields and its 44-digit barcode. */
export interface ParsedBoletoLine {
  /** The issuing bank's 3-digit code. */
  bankCode: string;
  /** The currency digit; always `"9"` (BRL) in a line Paykit accepts. */
  currencyCode: string;
  /** Amount in integer cents of BRL (0 when the slip leaves the amount to the payer). */
  amountCents: number;
  /** Due date, `YYYY-MM-DD`, from the FEBRABAN due-date factor. */
  dueDate: string;
  /** The bank's 25-digit free field. */
  freeField: string;
  /** The 44-digit barcode the line stands for. */
  barcode: string;
}

/** A boleto that cannot be built from the given fields, or a digitable line that is not a valid one. */
export class BoletoError extends Error {
  override readonly name = "BoletoError";
  /**
   * What is at fault: an input field (`"bankCode"`, `"amountCents"`, `"dueDate"`, `"freeField"`),
   * the line itself (`"line"`, `"currencyCode"`), or the check digit that failed (`"field1"`,
   * `"field2"`, `"field3"`, `"generalCheckDigit"`).
   */
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

const BRL = "9";
const MAX_AMOUNT_CENTS = 9_999_999_999;
const DAY_MS = 86_400_000;
// FEBRABAN due-date factor: days since 1997-10-07. It reached 9999 on 2025-02-21 and restarted at
// 1000 on 2025-02-22, so factors 1000-9999 repeat every 9000 days.
const FACTOR_BASE_DAY = Date.UTC(1997, 9, 7) / DAY_MS;
const FACTOR_MIN = 1000;
const FACTOR_CYCLE = 9000;
// FEBRABAN's window for reading a factor after the reset: the due date lies at most 3000 days
// before and 5500 days after the reference day (the one @brazilian-utils uses too).
const WINDOW_PAST_DAYS = 3000;
const WINDOW_FUTURE_DAYS = 5500;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayNumber(date: Date | string, field: string): number {
  if (typeof date === "string") {
    const match = ISO_DAY.exec(date);
    if (match) {
      const [, year, month, day] = match.map(Number) as [number, number, number, number];
      const time = Date.UTC(year, month - 1, day);
      // Date.UTC rolls 2025-02-30 over to March; a real calendar day survives the round trip.
      if (new Date(time).toISOString().slice(0, 10) === date) return time / DAY_MS;
    }
    throw new BoletoError(`${field} must be a calendar date as YYYY-MM-DD, got "${date}"`, field);
  }
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new BoletoError(`${field} must be a valid Date or a YYYY-MM-DD string`, field);
  }
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) / DAY_MS;
}

function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The FEBRABAN due-date factor (4 digits) a boleto carries for its due date, after the
 * 2025-02-22 restart at 1000 (`"2025-02-21"` → `"9999"`, `"2025-02-22"` → `"1000"`).
 *
 * @throws {BoletoError} when the date is invalid or before 2000-07-03 (factor 1000 of the first cycle).
 */
export function boletoDueDateFactor(date: Date | string): string {
  const days = dayNumber(date, "dueDate") - FACTOR_BASE_DAY;
  if (days < FACTOR_MIN) throw new BoletoError("dueDate must be 2000-07-03 or later", "dueDate");
  return String(FACTOR_MIN + ((days - FACTOR_MIN) % FACTOR_CYCLE));
}

/**
 * The due date (`YYYY-MM-DD`) a boleto's factor stands for. A factor names one day in every 9000-day
 * cycle; the one chosen lies within 3000 days before and 5500 days after `reference` (FEBRABAN's
 * window), or is the nearest one when the factor falls in the gap between windows.
 *
 * @param reference - The day the slip is read on. @default new Date()
 * @throws {BoletoError} when the factor is not 4 digits or is below 1000 (`0000`: a slip without due date).
 */
export function boletoDueDateFromFactor(factor: string, reference: Date = new Date()): string {
  if (!/^\d{4}$/.test(factor) || Number(factor) < FACTOR_MIN) {
    throw new BoletoError(
      `the due-date factor must be 4 digits from 1000 to 9999, got "${factor}"`,
      "dueDate",
    );
  }
  const first = FACTOR_BASE_DAY + Number(factor);
  const today = dayNumber(reference, "reference");
  const cycle = Math.max(0, Math.ceil((today - WINDOW_PAST_DAYS - first) / FACTOR_CYCLE));
  const candidate = first + cycle * FACTOR_CYCLE;
  if (candidate <= today + WINDOW_FUTURE_DAYS || cycle === 0) return isoDay(candidate);
  const previous = candidate - FACTOR_CYCLE;
  return isoDay(candidate - today <= today - previous ? candidate : previous);
}

// Módulo 10 of the digitable line's fields: weights 2, 1, 2, … from the right, digits of each product summed.
function mod10(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let product = (digits.charCodeAt(digits.length - 1 - i) - 48) * (i % 2 === 0 ? 2 : 1);
    if (product > 9) product -= 9;
    sum += product;
  }
  return String((10 - (sum % 10)) % 10);
}

// Módulo 11 of the barcode (general check digit): weights 2-9 from the right; 0, 10 and 11 become 1.
function mod11(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    sum += (digits.charCodeAt(digits.length - 1 - i) - 48) * (2 + (i % 8));
  }
  const digit = 11 - (sum % 11);
  return digit === 0 || digit === 10 || digit === 11 ? "1" : String(digit);
}

function barcodeOf(fields: BoletoFields): string {
  const { bankCode, amountCents, freeField } = fields;
  if (typeof bankCode !== "string" || !/^\d{3}$/.test(bankCode)) {
    throw new BoletoError("bankCode must be 3 digits", "bankCode");
  }
  if (!Number.isSafeInteger(amountCents) || amountCents < 1 || amountCents > MAX_AMOUNT_CENTS) {
    throw new BoletoError(`amountCents must be an integer from 1 to ${MAX_AMOUNT_CENTS}`, "amountCents");
  }
  if (typeof freeField !== "string" || !/^\d{25}$/.test(freeField)) {
    throw new BoletoError("freeField must be 25 digits", "freeField");
  }
  const factor = boletoDueDateFactor(fields.dueDate);
  const body = `${bankCode}${BRL}${factor}${String(amountCents).padStart(10, "0")}${freeField}`;
  return `${body.slice(0, 4)}${mod11(body)}${body.slice(4)}`;
}

/**
 * The 44-digit barcode of a boleto (FEBRABAN layout: bank, currency 9, general check digit
 * by módulo 11, due-date factor, amount, free field).
 *
 * @throws {BoletoError} naming the field that is out of range.
 */
export function buildBoletoBarcode(fields: BoletoFields): string {
  return barcodeOf(fields);
}

/**
 * The 47-digit digitable line a BOLETO payin returns as `boleto.barcode`: three fields with their
 * módulo 10 check digits, the general check digit, then the due-date factor and the amount.
 *
 * @throws {BoletoError} naming the field that is out of range.
 *
 * @example
 * buildBoletoLine({ bankCode: "001", amountCents: 10000, dueDate: "2026-03-10", freeField: "0".repeat(25) });
 * // "00190000090000000000000000000000413810000010000" (factor 1381, amount 0000010000)
 */
export function buildBoletoLine(fields: BoletoFields): string {
  const barcode = barcodeOf(fields);
  const field1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const field2 = barcode.slice(24, 34);
  const field3 = barcode.slice(34, 44);
  return `${field1}${mod10(field1)}${field2}${mod10(field2)}${field3}${mod10(field3)}${barcode.slice(4, 19)}`;
}

const LINE_FIELDS = [
  { field: "field1", name: "field 1", start: 0, end: 9 },
  { field: "field2", name: "field 2", start: 10, end: 20 },
  { field: "field3", name: "field 3", start: 21, end: 31 },
] as const;

/**
 * Reads a boleto's 47-digit digitable line (digits only, no dots or spaces) into its fields,
 * after checking every check digit.
 *
 * @param reference - The day the slip is read on, to place its due-date factor. @default new Date()
 * @throws {BoletoError} naming the check digit that failed (`field` is `"field1"`, `"field2"`,
 * `"field3"` or `"generalCheckDigit"`), or when the line is not 47 digits, is not in BRL, or has no due date.
 */
export function parseBoletoLine(line: string, reference?: Date): ParsedBoletoLine {
  if (typeof line !== "string" || !/^\d{47}$/.test(line)) {
    throw new BoletoError("a digitable line must be exactly 47 digits, with no dots or spaces", "line");
  }
  for (const { field, name, start, end } of LINE_FIELDS) {
    const expected = mod10(line.slice(start, end));
    if (line[end] !== expected) {
      throw new BoletoError(
        `the ${name} check digit (position ${end + 1}) is ${line[end]}, expected ${expected}`,
        field,
      );
    }
  }
  const freeField = line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
  const generalDigit = line.slice(32, 33);
  const barcode = line.slice(0, 4) + generalDigit + line.slice(33, 47) + freeField;
  const expected = mod11(barcode.slice(0, 4) + barcode.slice(5));
  if (generalDigit !== expected) {
    throw new BoletoError(
      `the general check digit (position 33) is ${generalDigit}, expected ${expected}`,
      "generalCheckDigit",
    );
  }
  const currencyCode = line.slice(3, 4);
  if (currencyCode !== BRL) {
    throw new BoletoError(`the currency code must be 9 (BRL), got ${currencyCode}`, "currencyCode");
  }
  return {
    bankCode: line.slice(0, 3),
    currencyCode,
    amountCents: Number(line.slice(37, 47)),
    dueDate: boletoDueDateFromFactor(line.slice(33, 37), reference),
    freeField,
    barcode,
  };
}

/** Whether `line` is a boleto digitable line Paykit accepts: 47 digits, every check digit right, BRL, with a due date. */
export function isValidBoletoLine(line: string): boolean {
  try {
    parseBoletoLine(line);
    return true;
  } catch {
    return false;
  }
}
