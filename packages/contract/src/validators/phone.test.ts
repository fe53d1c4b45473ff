import { describe, expect, it } from "vitest";
import { isValidPhone } from "./phone.js";

describe("isValidPhone: digits only, 55 + area code + 8 or 9 digits (docs/decisions/customer.md)", () => {
  it.each([
    ["5511987654321", "a São Paulo mobile, 13 digits"],
    ["551130000000", "a São Paulo landline, 12 digits"],
    ["5521912345678", "a Rio de Janeiro mobile"],
    ["5561987654321", "a Brasília mobile"],
    ["5599987654321", "the last area code, 99 (Maranhão)"],
    ["5555987654321", "area code 55 (Rio Grande do Sul) after the country code 55"],
  ])("accepts %s (%s)", (value) => {
    expect(isValidPhone(value)).toBe(true);
  });

  it.each([
    ["+5511987654321", "a plus sign"],
    ["55 11 98765-4321", "a mask"],
    ["(11) 98765-4321", "a national mask"],
    ["11987654321", "no country code"],
    ["5411987654321", "another country code"],
    ["5520987654321", "an unused area code (20)"],
    ["5510987654321", "an unused area code (10)"],
    ["5501987654321", "area code 01"],
    ["5511887654321", "a 9-digit number not starting with 9"],
    ["55119876543", "11 digits"],
    ["55119876543210", "14 digits"],
    ["5511９87654321", "a full-width digit"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidPhone(value)).toBe(false);
  });
});
