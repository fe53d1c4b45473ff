import { getStates } from "@brazilian-utils/brazilian-utils/get-states";
import { describe, expect, it } from "vitest";
import { isValidUf, UF_CODES } from "./uf.js";

describe("isValidUf: one of the 27 state codes (docs/decisions/customer.md)", () => {
  it("lists the same 27 codes as the library's table of states", () => {
    expect(UF_CODES).toHaveLength(27);
    expect([...UF_CODES].sort()).toEqual(
      getStates()
        .map((state) => state.code)
        .sort(),
    );
  });

  it.each(UF_CODES.map((code) => [code]))("accepts %s", (code) => {
    expect(isValidUf(code)).toBe(true);
  });

  it.each([
    ["sp", "lowercase"],
    ["Sp", "mixed case"],
    ["XX", "an unknown code"],
    ["SPA", "three letters"],
    [" SP", "whitespace"],
    ["São Paulo", "a state name"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidUf(value)).toBe(false);
  });
});
