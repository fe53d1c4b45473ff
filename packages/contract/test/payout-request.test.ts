import { describe, expect, it } from "vitest";
import { PayoutCreateParams, PayoutListQuery, validate } from "../src/index.js";
import { payout, withField } from "./fixtures.js";

function failure(schema: typeof PayoutCreateParams | typeof PayoutListQuery, body: unknown) {
  const result = validate(schema, body);
  if (result.success) throw new Error("expected the request to be refused");
  return result;
}

describe("POST /payout request", () => {
  it.each([
    ["CPF", "52998224725"],
    ["CNPJ", "11222333000181"],
    ["CNPJ", "12ABC34501DE35"],
    ["EMAIL", "ana@example.com"],
    ["PHONE", "+5511987654321"],
    ["PHONE", "+551133334444"],
    ["EVP", "123e4567-e89b-42d3-a456-426614174000"],
  ])("accepts a %s key %s", (pixKeyType, pixKey) => {
    expect(validate(PayoutCreateParams, { ...payout, pixKeyType, pixKey })).toMatchObject({ success: true });
  });

  it.each([
    ["a CPF key with a wrong check digit", "CPF", "52998224726"],
    ["a CNPJ key with a wrong check digit", "CNPJ", "11222333000182"],
    ["an e-mail key over 77 characters", "EMAIL", `${"a".repeat(70)}@example.com`],
    ["a phone key without +55", "PHONE", "11987654321"],
    ["an EVP that is not a UUID", "EVP", "not-a-uuid"],
    ["a CPF sent as an EMAIL key", "EMAIL", "52998224725"],
  ])("%s is INVALID_PIX_KEY on pixKey", (_rule, pixKeyType, pixKey) => {
    const result = failure(PayoutCreateParams, { ...payout, pixKeyType, pixKey });
    expect(result.code).toBe("INVALID_PIX_KEY");
    expect(result.details.map((d) => d.path)).toEqual(["pixKey"]);
  });

  it.each(["amount", "pixKey", "pixKeyType", "referenceId"])("missing %s is INVALID_DATA", (field) => {
    const result = failure(PayoutCreateParams, withField(payout, field, undefined));
    expect(result.code).toBe("INVALID_DATA");
    expect(result.details[0]).toEqual({ path: field, message: "is required" });
  });

  it.each([
    ["a fractional amount", "amount", 10.5],
    ["a zero amount", "amount", 0],
    ["an unknown key type", "pixKeyType", "IBAN"],
    ["an invalid beneficiary document", "beneficiaryDocument", "123"],
    ["a webhookUrl that is not a URL", "webhookUrl", "hook"],
  ])("%s is INVALID_DATA", (_rule, field, value) => {
    const result = failure(PayoutCreateParams, withField(payout, field, value));
    expect(result.code).toBe("INVALID_DATA");
    expect(result.details.map((d) => d.path)).toContain(field);
  });
});

describe("GET /payout query", () => {
  it("accepts every filter", () => {
    const query = {
      status: "COMPLETED",
      startDate: "2026-01-01",
      endDate: "2026-01-31T23:59:59Z",
      referenceId: "payout-1",
      page: 2,
      limit: 100,
    };
    expect(validate(PayoutListQuery, query)).toMatchObject({ success: true });
  });

  it.each([
    ["page 0", "page", 0],
    ["limit 0", "limit", 0],
    ["limit 101", "limit", 101],
    ["an unknown status", "status", "DONE"],
    ["a date that is not ISO 8601", "startDate", "31/01/2026"],
  ])("%s is INVALID_DATA", (_rule, field, value) => {
    expect(failure(PayoutListQuery, { [field]: value }).details.map((d) => d.path)).toEqual([field]);
  });
});
