import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidCep } from "./cep.js";

describe("isValidCep: exactly 8 digits, digits only (docs/decisions/customer.md)", () => {
  it.each([["01310100"], ["20040020"], ["00000000"]])("accepts %s", (value) => {
    expect(isValidCep(value)).toBe(true);
  });

  it.each([
    ["01310-100", "a dash"],
    ["01.310-100", "a mask"],
    ["0131010", "7 digits"],
    ["013101000", "9 digits"],
    [" 01310100", "whitespace"],
    ["0131010a", "a letter"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidCep(value)).toBe(false);
  });

  it("accepts any 8 digits and nothing else", () => {
    fc.assert(fc.property(fc.string(), (value) => isValidCep(value) === /^\d{8}$/.test(value)));
    fc.assert(fc.property(fc.stringMatching(/^\d{8}$/), (value) => isValidCep(value)));
  });
});
