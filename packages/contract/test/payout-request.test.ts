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
    ["a leap second", "2016-12-31T23:59:60Z"],
    ["ten fraction digits", "2026-01-31T12:00:00.1234567891Z"],
    ["a lowercase t and z", "2026-01-31t12:00:00z"],
    ["an offset", "2026-01-31T09:00:00-03:00"],
    ["a space as the separator", "2026-01-31 12:00:00Z"],
    ["a date alone", "2026-01-31"],
  ])("takes %s as a date filter", (_form, value) => {
    for (const field of ["startDate", "endDate"])
      expect(validate(PayoutListQuery, { [field]: value }), `${field}=${value}`).toMatchObject({
        success: true,
      });
  });

  it.each([
    ["startDate", "2026-02-30T00:00:00Z"],
    ["endDate", "2026-02-29"],
    ["startDate", "2026-01-31T12:00:60Z"],
    ["endDate", "2026-01-31T24:00:00Z"],
  ])("refuses %s=%s, a moment that does not exist, as INVALID_DATA naming it", (field, value) => {
    const result = failure(PayoutListQuery, { [field]: value });
    expect(result.code).toBe("INVALID_DATA");
    expect(result.details).toEqual([
      {
        path: field,
        message: "must be an ISO 8601 date or date-time that exists (2026-01-31 or 2026-01-31T12:00:00Z)",
      },
    ]);
  });

  it("takes any page up to 2^53 - 1 and refuses the next", () => {
    expect(validate(PayoutListQuery, { page: Number.MAX_SAFE_INTEGER })).toMatchObject({ success: true });
    expect(failure(PayoutListQuery, { page: Number.MAX_SAFE_INTEGER + 1 }).details[0]?.path).toBe("page");
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
