import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidEmail } from "./email.js";

describe("isValidEmail: a sane address of at most 254 characters (customer.email, EMAIL keys)", () => {
  it.each([
    ["user@example.com", "a plain address"],
    ["first.last+tag@example.com.br", "dots, a plus tag and a .com.br domain"],
    ["o'neil@example.co", "an apostrophe"],
    ["USER@EXAMPLE.COM", "uppercase"],
    ["a@b.co", "the shortest usual form"],
    [`${"a".repeat(64)}@example.com`, "a 64-character local part"],
    [`a@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(60)}`, "254 characters"],
  ])("accepts %s (%s)", (value) => {
    expect(isValidEmail(value)).toBe(true);
  });

  it.each([
    ["user.example.com", "no @"],
    ["@example.com", "no local part"],
    ["user@", "no domain"],
    ["user@localhost", "a domain without a dot"],
    ["user@example.c", "a one-letter top-level domain"],
    ["user@example.c0m", "a digit in the top-level domain"],
    ["a..b@example.com", "two dots in a row"],
    [".a@example.com", "a leading dot"],
    ["a@-example.com", "a label starting with a hyphen"],
    ["a b@example.com", "a space"],
    [" user@example.com", "leading whitespace"],
    ["user@example.com\n", "a trailing newline"],
    ["josé@example.com", "a non-ASCII letter"],
    ["a@[127.0.0.1]", "an address literal"],
    ["a@b@example.com", "two @"],
    [`${"a".repeat(65)}@example.com`, "a local part over 64 characters"],
    [`a@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(61)}`, "255 characters"],
    ["", "empty"],
  ])("rejects %j (%s)", (value) => {
    expect(isValidEmail(value)).toBe(false);
  });

  it("never accepts more than 254 characters", () => {
    fc.assert(fc.property(fc.emailAddress(), (value) => value.length <= 254 || !isValidEmail(value)));
  });
});
