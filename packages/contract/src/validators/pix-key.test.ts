import { generateCnpj } from "@brazilian-utils/brazilian-utils/generate-cnpj";
import { generateCpf } from "@brazilian-utils/brazilian-utils/generate-cpf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidPixKey, PIX_KEY_TYPES, type PixKeyType, pixKeyTypeOf } from "./pix-key.js";

const EXAMPLES: ReadonlyArray<readonly [PixKeyType, string, string]> = [
  ["CPF", "12345678909", "11 digits with valid check digits"],
  ["CNPJ", "12345678000195", "a numeric CNPJ"],
  ["CNPJ", "12ABC34501DE35", "an alphanumeric CNPJ"],
  ["EMAIL", "payouts@example.com", "an e-mail address"],
  ["EMAIL", `${"a".repeat(62)}@example.com.br`, "an e-mail address of exactly 77 characters"],
  ["PHONE", "+5511987654321", "+55, area code and a 9-digit mobile (11 digits)"],
  ["PHONE", "+551130000000", "+55, area code and an 8-digit number (10 digits)"],
  ["EVP", "123e4567-e12b-12d1-a456-426655440000", "a UUID (any version)"],
  ["EVP", "71C7D9BE-4B85-4E43-9F1C-1F3B8B4E9A2D", "an uppercase UUID"],
];

describe("isValidPixKey: the key matches its pixKeyType (docs/decisions/pix-keys.md)", () => {
  it.each(EXAMPLES)("accepts a %s key %j (%s)", (type, key) => {
    expect(isValidPixKey(type, key)).toBe(true);
  });

  it.each([
    ["CPF", "123.456.789-09", "a masked CPF"],
    ["CPF", "12345678900", "a CPF with wrong check digits"],
    ["CNPJ", "12.345.678/0001-95", "a masked CNPJ"],
    ["CNPJ", "12abc34501de35", "a lowercase alphanumeric CNPJ"],
    ["CNPJ", "12345678000194", "a CNPJ with a wrong check digit"],
    ["EMAIL", "payouts.example.com", "an address without @"],
    ["EMAIL", `${"a".repeat(63)}@example.com.br`, "a valid address, but 78 characters"],
    ["PHONE", "5511987654321", "a phone without +"],
    ["PHONE", "+1 4155552671", "a foreign number"],
    ["PHONE", "+14155552671", "a foreign number without spaces"],
    ["PHONE", "+55 11 98765-4321", "a masked phone"],
    ["PHONE", "+5511887654321", "a 9-digit number not starting with 9"],
    ["PHONE", "+5520987654321", "an unused area code"],
    ["PHONE", "+55119876543", "9 digits after +55"],
    ["EVP", "123e4567e12b12d1a456426655440000", "a UUID without dashes"],
    ["EVP", "123e4567-e12b-12d1-a456-42665544000g", "a non-hex character"],
    ["EVP", "{123e4567-e12b-12d1-a456-426655440000}", "braces"],
    ["EVP", "123e4567-e12b-12d1-a456-4266554400000", "13 digits in the last group"],
  ] as const)("rejects a %s key %j (%s)", (type, key, _reason) => {
    expect(isValidPixKey(type, key)).toBe(false);
  });

  it.each(
    EXAMPLES.flatMap(([type, key]) =>
      PIX_KEY_TYPES.filter((other) => other !== type).map((other) => [other, key, type] as const),
    ),
  )("rejects a %s key %j (it is a %s key)", (type, key) => {
    expect(isValidPixKey(type, key)).toBe(false);
  });

  it("takes generated CPFs, CNPJs and UUIDs of any version and case", () => {
    fc.assert(fc.property(fc.nat(), () => isValidPixKey("CPF", generateCpf())));
    fc.assert(
      fc.property(fc.constantFrom<1 | 2>(1, 2), (version) => isValidPixKey("CNPJ", generateCnpj(version))),
    );
    fc.assert(fc.property(fc.mixedCase(fc.uuid()), (uuid) => isValidPixKey("EVP", uuid)));
  });
});

describe("pixKeyTypeOf: which key type a well-formed key is", () => {
  it.each(EXAMPLES)("reads %s from %j", (type, key) => {
    expect(pixKeyTypeOf(key)).toBe(type);
  });

  it.each([["not a key"], ["123.456.789-09"], ["12345678900"], ["5511987654321"], [""]])(
    "answers null for %j",
    (key) => {
      expect(pixKeyTypeOf(key)).toBeNull();
    },
  );

  it("names the one type a key is valid for (the five formats never overlap)", () => {
    const anyKey = fc.oneof(
      fc.nat().map(() => generateCpf()),
      fc.constantFrom<1 | 2>(1, 2).map((version) => generateCnpj(version)),
      fc.emailAddress(),
      fc.stringMatching(/^\+55\d{10,11}$/),
      fc.uuid(),
      fc.string(),
    );
    fc.assert(
      fc.property(anyKey, (key) => {
        const valid = PIX_KEY_TYPES.filter((type) => isValidPixKey(type, key));
        return valid.length <= 1 && pixKeyTypeOf(key) === (valid[0] ?? null);
      }),
    );
  });
});
