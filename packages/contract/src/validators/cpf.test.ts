import { generateCpf } from "@brazilian-utils/brazilian-utils/generate-cpf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidCpf } from "./cpf.js";

const validCpf = fc.nat().map(() => generateCpf());
const step = fc.integer({ min: 1, max: 9 });

/** `value` with the digit at `at` replaced by a different digit (`step` places further, mod 10). */
function changeDigit(value: string, at: number, by: number): string {
  return value.slice(0, at) + String((Number(value[at]) + by) % 10) + value.slice(at + 1);
}

describe("isValidCpf: 11 digits, digits only, valid check digits (docs/decisions/customer.md)", () => {
  it.each([
    ["12345678909", "a valid CPF"],
    ["52998224725", "another valid CPF"],
    ["00000000191", "leading zeros are digits like any other"],
  ])("accepts %s (%s)", (value) => {
    expect(isValidCpf(value)).toBe(true);
  });

  it.each([
    ["123.456.789-09", "a mask"],
    ["123456789-09", "a dash"],
    [" 12345678909", "leading whitespace"],
    ["12345678909 ", "trailing whitespace"],
    ["123456789 09", "inner whitespace"],
    ["1234567890", "10 digits"],
    ["123456789090", "12 digits"],
    ["12345678919", "a wrong first check digit"],
    ["12345678908", "a wrong second check digit"],
    ["11111111111", "all one digit (passes the check-digit formula)"],
    ["00000000000", "all zeros"],
    ["１２３４５６７８９０９", "full-width digits"],
    ["1234567890a", "a letter"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidCpf(value)).toBe(false);
  });

  it("accepts every CPF the library generates", () => {
    fc.assert(fc.property(validCpf, (cpf) => isValidCpf(cpf)));
  });

  it("rejects a CPF with one of its two check digits changed", () => {
    fc.assert(
      fc.property(validCpf, fc.integer({ min: 9, max: 10 }), step, (cpf, at, by) => {
        return !isValidCpf(changeDigit(cpf, at, by));
      }),
    );
  });

  // Módulo 11 maps remainders 0 and 1 to the same check digit 0, so a changed digit can only go
  // unnoticed when the first check digit is 0 (example below); otherwise every change is caught.
  it("rejects any single changed digit when the first check digit is not 0", () => {
    fc.assert(
      fc.property(
        validCpf.filter((cpf) => cpf[9] !== "0"),
        fc.integer({ min: 0, max: 10 }),
        step,
        (cpf, at, by) => !isValidCpf(changeDigit(cpf, at, by)),
      ),
    );
  });

  it("cannot catch every changed digit: the CPF formula itself lets a few through", () => {
    expect(isValidCpf("50227710800")).toBe(true);
    expect(isValidCpf("60227710800")).toBe(true);
  });

  it("never accepts anything but exactly 11 ASCII digits", () => {
    fc.assert(fc.property(fc.string(), (value) => !isValidCpf(value) || /^\d{11}$/.test(value)));
  });
});
