import { generateCnpj } from "@brazilian-utils/brazilian-utils/generate-cnpj";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidCnpj } from "./cnpj.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const validCnpj = fc.constantFrom<1 | 2>(1, 2).map((version) => generateCnpj(version));

/** The value a CNPJ character weighs in the check digits: its ASCII code minus 48 (Receita Federal). */
const weight = (char: string) => char.charCodeAt(0) - 48;

describe("isValidCnpj: 14 characters, no mask, numeric or alphanumeric, valid check digits", () => {
  it.each([
    ["12345678000195", "a numeric CNPJ"],
    ["11222333000181", "another numeric CNPJ"],
    ["12ABC34501DE35", "the Receita Federal's alphanumeric example"],
    ["Q0SLFMBD7VX439", "an alphanumeric CNPJ"],
  ])("accepts %s (%s)", (value) => {
    expect(isValidCnpj(value)).toBe(true);
  });

  it.each([
    ["12.345.678/0001-95", "a mask"],
    ["12 345 678 0001 95", "whitespace"],
    ["q0slfmbd7vx439", "lowercase letters"],
    ["12ABC34501DEA5", "a letter among the check digits"],
    ["1234567800019", "13 characters"],
    ["123456780001955", "15 characters"],
    ["12345678000185", "a wrong first check digit"],
    ["12345678000194", "a wrong second check digit"],
    ["00000000000000", "all zeros"],
    ["11111111111111", "all one digit"],
    ["12ABC34501DE3!", "punctuation"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidCnpj(value)).toBe(false);
  });

  it("accepts every numeric and alphanumeric CNPJ the library generates", () => {
    fc.assert(fc.property(validCnpj, (cnpj) => isValidCnpj(cnpj)));
  });

  it("rejects a CNPJ with one of its two check digits changed", () => {
    fc.assert(
      fc.property(
        validCnpj,
        fc.integer({ min: 12, max: 13 }),
        fc.integer({ min: 1, max: 9 }),
        (cnpj, at, by) => {
          const changed = String((Number(cnpj[at]) + by) % 10);
          return !isValidCnpj(cnpj.slice(0, at) + changed + cnpj.slice(at + 1));
        },
      ),
    );
  });

  // Módulo 11 has two blind spots, both in the Receita Federal's formula: remainders 0 and 1 share
  // the check digit 0, and two characters whose weights differ by 11 ("9" and "D") look alike.
  it("rejects any single changed character when the first check digit is not 0 and weights do not differ by 11", () => {
    fc.assert(
      fc.property(
        validCnpj.filter((cnpj) => cnpj[12] !== "0"),
        fc.integer({ min: 0, max: 11 }),
        fc.constantFrom(...ALPHABET),
        (cnpj, at, char) => {
          const original = cnpj[at] ?? "";
          fc.pre(char !== original && (weight(char) - weight(original)) % 11 !== 0);
          return !isValidCnpj(cnpj.slice(0, at) + char + cnpj.slice(at + 1));
        },
      ),
    );
  });

  it("cannot tell characters 11 apart: the alphanumeric formula reads 9 and D alike", () => {
    expect(isValidCnpj("DJPOY776AH8795")).toBe(true);
    expect(isValidCnpj("9JPOY776AH8795")).toBe(true);
  });

  it("never accepts anything but 12 digits or uppercase letters and 2 digits", () => {
    fc.assert(fc.property(fc.string(), (value) => !isValidCnpj(value) || /^[0-9A-Z]{12}\d{2}$/.test(value)));
  });
});
