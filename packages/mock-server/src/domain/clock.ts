import { dateTimeBounds } from "@paykit/contract";

/** Earliest time the mock clock takes: 1970-01-01T00:00:00.000Z. */
export const CLOCK_MIN_MS = 0;
/** Latest time the mock clock takes: 9999-12-31T23:59:59.999Z (far inside the `Date` range). */
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The epoch ms of an ISO 8601 date or date-time of the control API, read by the contract as the API's
 * date filters are: a date alone is its UTC midnight, a date-time without a zone is UTC, a leap second
 * is the next day's first millisecond. `NaN` when it is not one.
 */
export function clockTimeOf(iso: string): number {
  return dateTimeBounds(iso)?.from ?? Number.NaN;
}
