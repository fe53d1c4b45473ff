import { isValidCreditCard } from "@brazilian-utils/brazilian-utils/is-valid-credit-card";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cardBrand, cardLast4, isLuhnValid, isValidCardNumber, isValidCvv, isValidExpiry } from "./card.js";

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });

/** `body` completed with the Luhn check digit that makes it valid. */
function withLuhnDigit(body: string): string {
  const check = [..."0123456789"].find((digit) => isLuhnValid(body + digit));
  return body + (check ?? "");
}

describe("isLuhnValid: the mod-10 check that guards card numbers", () => {
  it.each([["4111111111111111"], ["5555555555554444"], ["378282246310005"], ["79927398713"], ["0"], ["18"]])(
    "accepts %s",
    (value) => {
      expect(isLuhnValid(value)).toBe(true);
    },
  );

  it.each([
    ["4111111111111112"],
    ["79927398710"],
    ["1"],
    [""],
    ["4111 1111 1111 1111"],
    ["411111111111111a"],
  ])("rejects %j", (value) => {
    expect(isLuhnValid(value)).toBe(false);
  });

  it("always has exactly one check digit that completes a number", () => {
    fc.assert(
      fc.property(
        digits(1, 30),
        (body) => [..."0123456789"].filter((d) => isLuhnValid(body + d)).length === 1,
      ),
    );
  });

  it("catches every single changed digit", () => {
    fc.assert(
      fc.property(
        digits(12, 18).map(withLuhnDigit),
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        (number, n, by) => {
          const at = n % number.length;
          const changed = number.slice(0, at) + String((Number(number[at]) + by) % 10) + number.slice(at + 1);
          return !isLuhnValid(changed);
        },
      ),
    );
  });

  it("agrees with the library's Luhn check on 13-19 digit numbers that are not one repeated digit", () => {
    fc.assert(
      fc.property(digits(13, 19), (value) => {
        fc.pre(!/^(\d)\1*$/.test(value));
        return isLuhnValid(value) === isValidCreditCard(value);
      }),
    );
  });
});

describe("isValidCardNumber: 13-19 digits, no spaces, Luhn-valid (docs/decisions/card.md)", () => {
  it.each([
    ["4111111111111111", "Visa test card"],
    ["4000000000003220", "the mock's 3DS card"],
    ["5555555555554444", "Mastercard test card"],
    ["378282246310005", "Amex test card, 15 digits"],
    ["4222222222222", "13 digits"],
    ["6363680000457000001", "19 digits"],
  ])("accepts %s (%s)", (value) => {
    expect(isValidCardNumber(value)).toBe(true);
  });

  it.each([
    ["4111111111111112", "a wrong check digit"],
    ["4111 1111 1111 1111", "spaces"],
    ["4111-1111-1111-1111", "dashes"],
    ["411111111118", "12 digits"],
    ["41111111111111111113", "20 digits"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidCardNumber(value)).toBe(false);
  });

  it("accepts every Luhn-valid number of 13-19 digits", () => {
    fc.assert(fc.property(digits(12, 18).map(withLuhnDigit), (number) => isValidCardNumber(number)));
  });
});

describe("isValidExpiry: month 01-12, 4-digit year, not before the current month", () => {
  const now = new Date("2026-05-15T12:00:00Z");

  it.each([
    ["05", "2026", "this month"],
    ["06", "2026", "next month"],
    ["01", "2027", "next year"],
    ["12", "2099", "far ahead"],
  ])("accepts %s/%s (%s)", (month, year) => {
    expect(isValidExpiry(month, year, now)).toBe(true);
  });

  it.each([
    ["04", "2026", "last month"],
    ["12", "2025", "last year"],
    ["5", "2026", "a one-digit month"],
    ["00", "2026", "month 00"],
    ["13", "2026", "month 13"],
    ["05", "26", "a two-digit year"],
    ["05", "02026", "a five-digit year"],
    [" 5", "2026", "a padded month"],
  ])("rejects %j/%j (%s)", (month, year) => {
    expect(isValidExpiry(month, year, now)).toBe(false);
  });

  it("keeps a card good until its month has ended in every time zone", () => {
    // 2026-06-01 05:00 UTC is still May 31 in Hawaii and Baker Island.
    expect(isValidExpiry("05", "2026", new Date("2026-06-01T05:00:00Z"))).toBe(true);
    expect(isValidExpiry("05", "2026", new Date("2026-06-01T12:00:00Z"))).toBe(false);
  });

  it("checks against the current date by default", () => {
    const today = new Date();
    expect(isValidExpiry("12", String(today.getUTCFullYear() + 1))).toBe(true);
    expect(isValidExpiry("01", String(today.getUTCFullYear() - 1))).toBe(false);
  });
});

describe("isValidCvv: 3 or 4 digits", () => {
  it.each([["123"], ["0000"], ["999"]])("accepts %s", (value) => {
    expect(isValidCvv(value)).toBe(true);
  });

  it.each([["12"], ["12345"], ["12a"], [" 123"], [""]])("rejects %j", (value) => {
    expect(isValidCvv(value)).toBe(false);
  });
});

describe("cardBrand: the brand from the number's prefix", () => {
  it.each([
    ["4111111111111111", "visa"],
    ["4000000000003220", "visa"],
    ["5555555555554444", "mastercard"],
    ["5105105105105100", "mastercard"],
    ["2221000000000009", "mastercard"],
    ["2720990000000007", "mastercard"],
    ["378282246310005", "amex"],
    ["341111111111111", "amex"],
    ["6362970000457013", "elo"],
    ["5067230000000000", "elo"],
    ["4011780000000000", "elo"],
    ["6504050000000000", "elo"],
    ["6062825624254001", "hipercard"],
    ["3841001111222233334", "hipercard"],
    ["6011111111111117", "unknown"],
    ["3530111333300000", "unknown"],
    ["2220990000000000", "unknown"],
    ["", "unknown"],
    ["abc", "unknown"],
  ])("reads %j as %s", (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
});

describe("cardLast4: all that may be kept of a card number", () => {
  it.each([
    ["4111111111111111", "1111"],
    ["378282246310005", "0005"],
  ])("keeps %s as %s", (number, last4) => {
    expect(cardLast4(number)).toBe(last4);
  });
});
