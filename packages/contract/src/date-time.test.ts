import { describe, expect, it } from "vitest";
import { dateTimeBounds, isIsoDateTime } from "./date-time.js";

const at = (iso: string) => Date.parse(iso);

describe("dateTimeBounds: what RFC 3339 allows, read as filter bounds", () => {
  it.each([
    ["2026-01-31T12:00:00Z", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31t12:00:00z", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31 12:00:00Z", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T09:00:00-03:00", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T17:30:00+05:30", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T12:00:00-00:00", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T12:00:00.5Z", at("2026-01-31T12:00:00.500Z"), at("2026-01-31T12:00:00.500Z")],
    // ten fraction digits: finer than a millisecond rounds toward the inside of the range it bounds
    ["2026-01-31T12:00:00.1234567891Z", at("2026-01-31T12:00:00.124Z"), at("2026-01-31T12:00:00.123Z")],
    ["2026-01-31T12:00:00.1230000000Z", at("2026-01-31T12:00:00.123Z"), at("2026-01-31T12:00:00.123Z")],
    // a leap second holds no epoch millisecond: from the first after it, to the last before it
    ["2016-12-31T23:59:60Z", at("2017-01-01T00:00:00.000Z"), at("2016-12-31T23:59:59.999Z")],
    ["2016-12-31T23:59:60.5Z", at("2017-01-01T00:00:00.000Z"), at("2016-12-31T23:59:59.999Z")],
    ["2016-12-31T20:59:60-03:00", at("2017-01-01T00:00:00.000Z"), at("2016-12-31T23:59:59.999Z")],
    // ISO 8601's shorter forms the service took before: a whole UTC day, no seconds, no zone
    ["2026-01-31", at("2026-01-31T00:00:00.000Z"), at("2026-01-31T23:59:59.999Z")],
    ["2026-01-31T12:00", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T12:00:00", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2026-01-31T09:00:00-0300", at("2026-01-31T12:00:00.000Z"), at("2026-01-31T12:00:00.000Z")],
    ["2024-02-29T00:00:00Z", at("2024-02-29T00:00:00.000Z"), at("2024-02-29T00:00:00.000Z")],
    // years 0-99 stay themselves (Date.UTC would read them as 19xx)
    ["0001-01-01T00:00:00Z", at("0001-01-01T00:00:00.000Z"), at("0001-01-01T00:00:00.000Z")],
  ])("%s", (value, from, to) => {
    const bounds = dateTimeBounds(value);
    expect(bounds).toEqual({ from, to });
    expect(isIsoDateTime(value)).toBe(true);
  });

  it.each([
    ["a day February does not have", "2026-02-30T00:00:00Z"],
    ["February 29th of a common year", "2026-02-29"],
    ["February 29th of 1900 (not a leap year)", "1900-02-29"],
    ["a 13th month", "2026-13-01T00:00:00Z"],
    ["day 0", "2026-01-00"],
    ["hour 24", "2026-01-31T24:00:00Z"],
    ["minute 60", "2026-01-31T12:60:00Z"],
    ["second 61", "2026-01-31T12:00:61Z"],
    ["a leap second at noon", "2026-01-31T12:00:60Z"],
    ["a leap second at 23:59 local time that is not 23:59 UTC", "2016-12-31T23:59:60-03:00"],
    ["an offset of 24 hours", "2026-01-31T12:00:00+24:00"],
    ["an offset minute of 60", "2026-01-31T12:00:00+03:60"],
    ["an empty fraction", "2026-01-31T12:00:00.Z"],
    ["a day-first date", "31/01/2026"],
    ["words", "yesterday"],
    ["a two-digit year", "26-01-31"],
    ["a trailing space", "2026-01-31T12:00:00Z "],
    ["a tab as the separator", "2026-01-31\t12:00:00Z"],
    ["the empty string", ""],
  ])("refuses %s: %s", (_why, value) => {
    expect(dateTimeBounds(value)).toBeNull();
    expect(isIsoDateTime(value)).toBe(false);
  });
});
