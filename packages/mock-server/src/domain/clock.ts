/** Earliest time the mock clock takes: 1970-01-01T00:00:00.000Z. */
export const CLOCK_MIN_MS = 0;
/** Latest time the mock clock takes: 9999-12-31T23:59:59.999Z (far inside the `Date` range). */
export const CLOCK_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The epoch ms of an ISO 8601 date or date-time of the control API: a date alone is its UTC midnight,
 * a date-time without a zone is UTC. `NaN` when it does not parse.
 */
export function clockTimeOf(iso: string): number {
  if (!iso.includes("T")) return Date.parse(`${iso}T00:00:00Z`);
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`);
}
