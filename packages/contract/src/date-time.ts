// The dates GET /payout filters by, read once for the client and the mock alike
// (docs/decisions/date-time-filters.md): every RFC 3339 date-time (what the OpenAPI document's `format: date-time`
// promises, leap second, any number of fraction digits, lowercase `t`/`z` and offsets included), the ISO
// 8601 forms the mock took before (a date alone, no seconds, no zone, `+hhmm`), and no date that does
// not exist. Kept free of zod so the mock and the client can call it on any string.

/** The range of epoch milliseconds a date or date-time names, as the bounds of a filter read it. */
export interface DateTimeBounds {
  /** The first epoch millisecond at or after the value: a `startDate` keeps `createdAt >= from`. */
  from: number;
  /** The last epoch millisecond at or before the value: an `endDate` keeps `createdAt <= to`. */
  to: number;
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;
const DAY_MS = 86_400_000;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}

/** Epoch ms of a UTC date and time; years 0-99 stay themselves (Date.UTC would read them as 19xx). */
function utc(year: number, month: number, day: number, hour: number, minute: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, 0, 0);
  return date.getTime();
}

/**
 * The milliseconds a date or date-time names, or `null` when it is not one or names a day or time that
 * does not exist (`2026-02-30`, `24:00`, a leap second anywhere but at 23:59:60 UTC).
 *
 * A date alone covers its whole UTC day, a date-time without a zone is UTC, and a fraction finer than a
 * millisecond rounds toward the inside of the range it bounds. A leap second holds no millisecond of
 * the epoch: `from` is the first one after it, `to` the last one before it.
 *
 * @example
 * ```ts
 * dateTimeBounds("2026-01-31"); // { from: 1769817600000, to: 1769903999999 }
 * dateTimeBounds("2016-12-31T23:59:60Z"); // { from: 1483228800000, to: 1483228799999 }
 * dateTimeBounds("2026-02-30T00:00:00Z"); // null
 * ```
 */
export function dateTimeBounds(value: string): DateTimeBounds | null {
  const match = typeof value === "string" ? DATE_TIME.exec(value) : null;
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, zh, zm] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (h === undefined) {
    const midnight = utc(year, month, day, 0, 0);
    return { from: midnight, to: midnight + DAY_MS - 1 };
  }
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? 0);
  const offsetHours = Number(zh ?? 0);
  const offsetMinutes = Number(zm ?? 0);
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return null;
  const offsetMs = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const minuteStart = utc(year, month, day, hour, minute) - (zone === undefined ? 0 : offsetMs);
  if (second === 60) {
    // RFC 3339 5.7: a leap second ends a UTC day, whatever the offset it is written in.
    if ((minuteStart + 60_000) % DAY_MS !== 0) return null;
    return { from: minuteStart + 60_000, to: minuteStart + 59_999 };
  }
  const digits = fraction ?? "";
  const ms = second * 1000 + Number(digits.slice(0, 3).padEnd(3, "0"));
  const finer = /[1-9]/.test(digits.slice(3)) ? 1 : 0;
  return { from: minuteStart + ms + finer, to: minuteStart + ms };
}

/**
 * Whether `value` is a date or date-time the service takes: any RFC 3339 date-time, or ISO 8601's
 * shorter forms (`2026-01-31`, `2026-01-31T12:00`, no zone for UTC), naming a day and time that exist.
 */
export function isIsoDateTime(value: string): boolean {
  return dateTimeBounds(value) !== null;
}
