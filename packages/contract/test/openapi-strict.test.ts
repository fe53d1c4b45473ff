// The OpenAPI document is as strict as the contract where a JSON Schema can say it (issue 35): each rule
// is checked with Ajv 2020-12 (as outside tools read the document) against the contract's own verdict.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { PayoutCreateParams, PayoutListQuery, PixPayinCreateParams, validate } from "../src/index.js";
import { STORABLE_TEXT_PATTERN } from "../src/storable-text.js";
import { payins, payout, withField } from "./fixtures.js";
import { schemaValidator } from "./openapi-schemas.js";

type Json = Record<string, unknown>;
type Parameter = { name: string; schema: Json };

const doc = JSON.parse(readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8")) as Json;
const { component, compile } = schemaValidator(doc);
const paths = doc.paths as Record<string, Record<string, Json>>;
const listParameters = paths["/payout"]?.get?.parameters as Parameter[];
const parameter = (name: string) => listParameters.find((p) => p.name === name) as Parameter;
const requestSchemas = ["PixPayinCreateParams", "BoletoPayinCreateParams", "CreditCardPayinCreateParams"]
  .concat(["OpenFinancePayinCreateParams", "PayoutCreateParams"])
  .map(
    (name) => [name, (doc.components as { schemas: Record<string, Json> }).schemas[name] as Json] as const,
  );

describe("customer.phone", () => {
  it.each([
    ["a mobile number: 9 digits starting with 9", "5511987654321", true],
    ["a landline: 8 digits", "551133334444", true],
    ["9 digits not starting with 9", "5511887654321", false],
    ["10 digits", "55119876543210", false],
  ])("%s: the document and the contract agree (%s → %s)", (_case, phone, valid) => {
    const body = withField(payins.PIX, "customer.phone", phone);
    expect(component("PixPayinCreateParams")(body)).toBe(valid);
    expect(validate(PixPayinCreateParams, body).success).toBe(valid);
  });
});

describe("GET /payout's query parameters come from PayoutListQuery", () => {
  it("names exactly the query's fields", () => {
    expect(listParameters.map((p) => p.name).sort()).toEqual(
      Object.keys((PayoutListQuery as unknown as { def: { shape: object } }).def.shape).sort(),
    );
  });

  it("page goes up to 2^53 - 1, as the service takes it", () => {
    expect(parameter("page").schema).toMatchObject({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1,
    });
  });

  it.each([
    ["a control character", "withdrawal\u0007", false],
    ["a NUL", "withdrawal\u0000", false],
    ["a lone surrogate", "withdrawal\ud83d", false],
    ["an emoji", "withdrawal 😀", true],
  ])("referenceId with %s: the document and the contract agree", (_case, referenceId, valid) => {
    expect(compile(parameter("referenceId").schema)(referenceId)).toBe(valid);
    expect(validate(PayoutListQuery, { referenceId }).success).toBe(valid);
    // POST /payout's referenceId carries the same rule
    const post = (doc.components as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas
      .PayoutCreateParams?.properties.referenceId;
    expect(parameter("referenceId").schema.pattern).toBe(post?.pattern);
  });

  it.each([
    ["2026-01-31T12:00:00Z", true],
    ["2016-12-31T23:59:60Z", true],
    ["2026-01-31T12:00:00.1234567891Z", true],
    ["2026-01-31t12:00:00z", true],
    ["2026-01-31T09:00:00-03:00", true],
    ["2026-01-31", true],
    ["2026-02-30T00:00:00Z", false],
    ["2026-02-29", false],
    ["2026-01-31T12:00:60Z", false],
    ["31/01/2026", false],
  ])("startDate and endDate %s: the document and the contract agree (→ %s)", (value, valid) => {
    for (const name of ["startDate", "endDate"]) {
      expect(compile(parameter(name).schema)(value), `${name} by the document`).toBe(valid);
      expect(validate(PayoutListQuery, { [name]: value }).success, `${name} by the contract`).toBe(valid);
    }
  });
});

describe("links", () => {
  const operationIds = new Map<string, Json>();
  for (const item of Object.values(paths))
    for (const op of Object.values(item)) operationIds.set(op.operationId as string, op);

  it.each([
    ["/payin", "post", "retrievePayin", { id: "$response.body#/id" }],
    ["/payout", "post", "listPayouts", { referenceId: "$response.body#/referenceId" }],
  ])("%s %s's 201 leads to %s", (path, method, target, parameters) => {
    const responses = (paths[path]?.[method]?.responses ?? {}) as Record<
      string,
      { links?: Record<string, Json> }
    >;
    const links = responses["201"]?.links;
    const link = Object.values(links ?? {}).find((l) => l.operationId === target);
    expect(link?.parameters).toEqual(parameters);
    // every linked parameter is one the target operation has
    const names = ((operationIds.get(target)?.parameters ?? []) as Parameter[]).map((p) => p.name);
    for (const name of Object.keys(parameters)) expect(names).toContain(name);
  });
});

describe("pixKey by pixKeyType (if/then)", () => {
  const validatePayout = component("PayoutCreateParams");
  const KEYS: Array<[string, string]> = [
    ["CPF", "52998224725"],
    ["CNPJ", "12ABC34501DE35"],
    ["EMAIL", "ana@example.com"],
    ["PHONE", "+5511987654321"],
    ["EVP", "123e4567-E89B-42d3-a456-426614174000"],
  ];

  it.each(KEYS)("a %s key %s is valid by the document and by the contract", (pixKeyType, pixKey) => {
    const body = { ...payout, pixKeyType, pixKey };
    expect(validatePayout(body), JSON.stringify(validatePayout.errors)).toBe(true);
    expect(validate(PayoutCreateParams, body).success).toBe(true);
  });

  it("a key of one type sent as another is refused by the document, as the contract refuses it", () => {
    for (const [type] of KEYS)
      for (const [keyType, pixKey] of KEYS) {
        if (type === keyType) continue;
        const body = { ...payout, pixKeyType: type, pixKey };
        expect(validatePayout(body), `${pixKey} as ${type}`).toBe(false);
        expect(validate(PayoutCreateParams, body)).toMatchObject({ success: false, code: "INVALID_PIX_KEY" });
      }
  });

  it.each([
    ["PHONE", "+5511887654321"],
    ["EMAIL", `${"a".repeat(70)}@example.com`],
  ])("a %s key %s is refused by the document's shape too", (pixKeyType, pixKey) => {
    expect(validatePayout({ ...payout, pixKeyType, pixKey })).toBe(false);
  });
});

describe("text fields refuse NUL and lone surrogates by their pattern", () => {
  /** Every string property of a request schema (nested objects, arrays, anyOf branches). */
  function textFields(schema: Json, path: string, out: Array<[string, Json]>): Array<[string, Json]> {
    if (schema.type === "string") out.push([path, schema]);
    for (const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
      textFields(value, path ? `${path}.${key}` : key, out);
    if (schema.items) textFields(schema.items as Json, `${path}[]`, out);
    for (const branch of (schema.anyOf ?? []) as Json[]) textFields(branch, path, out);
    return out;
  }
  const fields = requestSchemas.flatMap(([name, schema]) =>
    textFields(schema, "", []).map(([path, field]) => [`${name}.${path}`, field] as const),
  );

  it("every text field of every request has a pattern, a const, an enum or a format", () => {
    expect(fields.length).toBeGreaterThan(60);
    for (const [path, field] of fields)
      expect(field.pattern ?? field.const ?? field.enum ?? field.format, path).toBeDefined();
  });

  // Ajv reads patterns with the `u` flag by default; a validator may read code units instead.
  it.each([true, false])("Ajv (unicodeRegExp: %s) refuses them in every free-text field", (unicodeRegExp) => {
    const ajv = new Ajv2020({ strict: true, unicodeRegExp });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    let checked = 0;
    for (const [path, field] of fields) {
      if (field.pattern !== STORABLE_TEXT_PATTERN) continue;
      const check = ajv.compile({ type: "string", pattern: field.pattern });
      for (const text of ["Zé 😀", "日本", "a\ud83d\ude00b"])
        expect(check(text), `${path} ${text}`).toBe(true);
      for (const text of ["a\u0000", "\ud83d", "x\ude00", "\ude00\ud83d"])
        expect(check(text), `${path} ${JSON.stringify(text)}`).toBe(false);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("the merged referenceId pattern refuses control characters and lone surrogates, keeps emoji", () => {
    for (const unicodeRegExp of [true, false]) {
      const ajv = new Ajv2020({ strict: true, unicodeRegExp });
      const check = ajv.compile(parameter("referenceId").schema);
      expect(check("order 😀")).toBe(true);
      for (const text of ["a\u0000", "a\u001f", "a\u0085", "\ud83d", "x\ude00"])
        expect(check(text)).toBe(false);
    }
  });

  it("the naive class refuses every emoji where code units are read: why the pattern has two branches", () => {
    const naive = "^[^\\u0000\\uD800-\\uDFFF]*$";
    expect(new RegExp(naive, "u").test("😀")).toBe(true);
    expect(new RegExp(naive).test("😀")).toBe(false);
    expect(new RegExp(STORABLE_TEXT_PATTERN).test("😀")).toBe(true);
  });
});
