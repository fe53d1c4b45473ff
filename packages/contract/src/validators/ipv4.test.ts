import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidIpv4 } from "./ipv4.js";

describe("isValidIpv4: a dotted quad, parts 0-255, no leading zeros (docs/decisions/customer.md)", () => {
  it.each([["0.0.0.0"], ["127.0.0.1"], ["192.168.0.10"], ["255.255.255.255"], ["10.0.100.9"]])(
    "accepts %s",
    (value) => {
      expect(isValidIpv4(value)).toBe(true);
    },
  );

  it.each([
    ["256.0.0.1", "a part above 255"],
    ["192.168.01.1", "a leading zero"],
    ["00.0.0.0", "a double zero"],
    ["192.168.1", "three parts"],
    ["192.168.1.1.1", "five parts"],
    ["192.168.1.", "a trailing dot"],
    ["192.168..1", "an empty part"],
    [" 192.168.1.1", "whitespace"],
    ["192.168.1.1\n", "a trailing newline"],
    ["::1", "IPv6"],
    ["1.2.3.-4", "a sign"],
    ["١.٢.٣.٤", "non-ASCII digits"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidIpv4(value)).toBe(false);
  });

  it("accepts every IPv4 address written canonically", () => {
    fc.assert(fc.property(fc.ipV4(), (value) => isValidIpv4(value)));
  });

  it("accepts exactly the strings that are four canonical numbers 0-255", () => {
    const canonical = (value: string) => {
      const parts = value.split(".");
      return (
        parts.length === 4 &&
        parts.every((part) => /^\d{1,3}$/.test(part) && String(Number(part)) === part && Number(part) <= 255)
      );
    };
    fc.assert(fc.property(fc.string(), (value) => isValidIpv4(value) === canonical(value)));
  });
});
