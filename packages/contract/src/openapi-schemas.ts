// The component schemas of the OpenAPI document: generated from the contract's zod schemas, then given
// what zod cannot carry (PATCHES: enums of lenient response fields, formats, examples, named rules), and
// every rule a JSON Schema can state (docs/decisions/openapi-states-what-it-can.md).
import * as z from "zod/mini";
import { ERROR_CODES, ErrorBody } from "./error.js";
import { isStorableString } from "./fields.js";
import {
  BoletoPayinCreated,
  BoletoPayinCreateParams,
  CreditCardPayinCreated,
  CreditCardPayinCreateParams,
  OpenFinancePayinCreated,
  OpenFinancePayinCreateParams,
  Payin,
  PayinCreated,
  PayinCreateParams,
  PixPayinCreated,
  PixPayinCreateParams,
} from "./payin.js";
import { Payout, PayoutCreateParams, PayoutList, PayoutListQuery } from "./payout.js";
import { PAYIN_STATUSES, PAYMENT_METHODS, PAYOUT_STATUSES } from "./status.js";
import { STORABLE_TEXT_PATTERN } from "./storable-text.js";
import { CNPJ_CHARS } from "./validators/cnpj.js";
import { CPF_DIGITS } from "./validators/cpf.js";
import { PIX_KEY_TYPES, type PixKeyType } from "./validators/index.js";
import { PHONE_DIGITS } from "./validators/phone.js";
import { EVP_KEY, MAX_EMAIL_KEY_LENGTH } from "./validators/pix-key.js";
import { PayinWebhookBody, PayoutWebhookBody } from "./webhook.js";

export type Json = Record<string, unknown>;

export const COMPONENTS: Array<[string, z.ZodMiniType, string]> = [
  ["PayinCreateParams", PayinCreateParams, "The body of POST /payin, one shape per paymentMethod."],
  ["PixPayinCreateParams", PixPayinCreateParams, "A PIX payin request."],
  ["BoletoPayinCreateParams", BoletoPayinCreateParams, "A BOLETO payin request."],
  ["CreditCardPayinCreateParams", CreditCardPayinCreateParams, "A CREDIT_CARD payin request."],
  ["OpenFinancePayinCreateParams", OpenFinancePayinCreateParams, "An OPEN_FINANCE payin request."],
  ["PayinCreated", PayinCreated, "The 201 answer to POST /payin."],
  ["PixPayinCreated", PixPayinCreated, "The 201 answer to a PIX payin."],
  ["BoletoPayinCreated", BoletoPayinCreated, "The 201 answer to a BOLETO payin."],
  ["CreditCardPayinCreated", CreditCardPayinCreated, "The 201 answer to a CREDIT_CARD payin."],
  ["OpenFinancePayinCreated", OpenFinancePayinCreated, "The 201 answer to an OPEN_FINANCE payin."],
  ["Payin", Payin, "A payin record."],
  ["PayoutCreateParams", PayoutCreateParams, "The body of POST /payout."],
  ["Payout", Payout, "A payout record."],
  ["PayoutList", PayoutList, "One page of payouts, newest first."],
  ["ErrorBody", ErrorBody, "The body of every non-2xx answer."],
  ["PayinWebhookBody", PayinWebhookBody, "The body POSTed to a payin's webhookUrl."],
  ["PayoutWebhookBody", PayoutWebhookBody, "The body POSTed to a payout's webhookUrl."],
];

/**
 * Rules a JSON Schema cannot state. Each is named in the description of the fields it applies to and
 * in their `x-paykit-rule` extension; a request valid by the document is refused only for one of these.
 */
export const OPENAPI_RULES = {
  "cpf-check-digits": "A CPF: 11 digits with valid check digits (INVALID_DATA).",
  "cpf-or-cnpj-check-digits":
    "A CPF (11 digits) or CNPJ (14 characters) with valid check digits (INVALID_DATA).",
  "br-phone":
    "55, a valid area code (DDD) and the number, digits only: 8 digits, or 9 starting with 9 (INVALID_DATA).",
  cep: "A CEP: exactly 8 digits (INVALID_DATA).",
  email: "An e-mail address the service accepts (stricter than RFC 5322 in places) (INVALID_DATA).",
  ipv4: "A dotted-quad IPv4 address (INVALID_DATA).",
  "http-url": "An absolute http(s) URL (INVALID_DATA).",
  luhn: "A card number of 13-19 digits passing the Luhn check (INVALID_DATA).",
  "card-not-expired": "expirationMonth/expirationYear not in the past (INVALID_DATA).",
  "pix-key-matches-type":
    "pixKey must be a valid key of pixKeyType (its shape per type is stated by the schema's if/then; " +
    "CPF and CNPJ check digits, the e-mail rule and the phone's area code are not) and exist in the PIX " +
    "directory (INVALID_PIX_KEY).",
  "payout-reference-unique": "referenceId not already used by another payout of the account (INVALID_DATA).",
  "payout-amount":
    "amount above the payout fee, 100 cents (INVALID_DATA); within the available balance, after reserves " +
    "and pending payouts (INSUFFICIENT_FUNDS); and within the night limit: per payout, São Paulo time, at " +
    "most 100000 cents from 20:00 to 06:00 and 10000000 otherwise, per account configurable (BEYOND_LIMITS).",
  "bank-availability":
    "The acquirer may be unavailable (TEMPORARY_UNAVAILABLE: retry in 5 to 10 minutes) or the banking " +
    "system may reject the transfer at once (PROVIDER_REJECTED: the payout exists as FAILED).",
  "account-state": "The account must have KYC approved, and card processing enabled for CREDIT_CARD (403).",
  "antifraud-and-acquirer":
    "The antifraud engine and the acquirer may refuse a valid payin (REJECTED_BY_RISK, PAYER_LIMIT_REJECTED, INVALID_CVV, PROVIDER_ERROR).",
} as const;
/** The name of a rule listed in {@link OPENAPI_RULES}. */
export type OpenApiRule = keyof typeof OPENAPI_RULES;

type Patch = Json & { rule?: OpenApiRule; required?: boolean };

const DATE_TIME: Patch = { format: "date-time", description: "ISO 8601 date-time (UTC)." };
const URI: Patch = { format: "uri" };
// What the filters take, stated as formats (the storable-text pattern is implied by both, so it goes).
const DATE_FILTER: Patch = {
  pattern: undefined,
  anyOf: [
    { type: "string", format: "date-time" },
    { type: "string", format: "date" },
  ],
};
const CUSTOMER_RULES: Record<string, Patch> = {
  "customer.document": { rule: "cpf-check-digits", pattern: "^[0-9]{11}$", examples: ["52998224725"] },
  "customer.phone": { rule: "br-phone", pattern: PHONE_DIGITS.source, examples: ["5511987654321"] },
  "customer.email": { rule: "email", format: "email", examples: ["maria.santos@example.com"] },
  "customer.address.zipCode": { rule: "cep", pattern: "^[0-9]{8}$", examples: ["01310100"] },
  payerIp: { rule: "ipv4", format: "ipv4", examples: ["203.0.113.7"] },
  webhookUrl: { rule: "http-url", format: "uri", examples: ["https://merchant.example.com/webhooks/paykit"] },
  "customer.name": { description: "The payer's full name." },
};
const PAYIN_CREATED: Record<string, Patch> = {
  status: { enum: [...PAYIN_STATUSES] },
  createdAt: DATE_TIME,
};

/** Keywords the zod schemas cannot carry (enums of lenient response fields, formats, rules). */
export const PATCHES: Record<string, Record<string, Patch>> = {
  PixPayinCreateParams: CUSTOMER_RULES,
  BoletoPayinCreateParams: CUSTOMER_RULES,
  OpenFinancePayinCreateParams: CUSTOMER_RULES,
  CreditCardPayinCreateParams: {
    ...CUSTOMER_RULES,
    "card.anyOf.1.number": { rule: "luhn", pattern: "^[0-9]{13,19}$", examples: ["4111111111111111"] },
    "card.anyOf.1.cvv": { pattern: "^[0-9]{3,4}$" },
    "card.anyOf.1.expirationYear": { rule: "card-not-expired", examples: ["2031"] },
  },
  PixPayinCreated: { ...PAYIN_CREATED, "pix.qrcode": { description: "The PIX BR Code (copy and paste)." } },
  BoletoPayinCreated: { ...PAYIN_CREATED, "boleto.url": URI, "boleto.barcode": { pattern: "^[0-9]{47}$" } },
  OpenFinancePayinCreated: { ...PAYIN_CREATED, openFinanceRedirectUrl: URI },
  CreditCardPayinCreated: { ...PAYIN_CREATED, threeDSecureSdkUrl: URI },
  Payin: {
    status: { enum: [...PAYIN_STATUSES] },
    paymentMethod: { enum: [...PAYMENT_METHODS] },
    currency: { enum: ["BRL"] },
    installments: { required: true, description: "Installments of a CREDIT_CARD payin; null otherwise." },
    boletoUrl: URI,
    "customer.email": { format: "email" },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  PayoutCreateParams: {
    amount: { rule: "payout-amount" },
    pixKey: { rule: "pix-key-matches-type", examples: ["maria.santos@example.com"] },
    referenceId: { rule: "payout-reference-unique" },
    beneficiaryDocument: {
      rule: "cpf-or-cnpj-check-digits",
      pattern: "^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$",
      examples: ["52998224725"],
    },
    webhookUrl: { rule: "http-url", format: "uri" },
  },
  Payout: {
    status: { enum: [...PAYOUT_STATUSES] },
    pixKeyType: { enum: [...PIX_KEY_TYPES] },
    currency: { enum: ["BRL"] },
    bankReceipt: { description: "The bank's receipt once the payout COMPLETED; its shape is not fixed yet." },
    failureCode: {
      required: true,
      description: "PROVIDER_REJECTED on FAILED and REFUSED payouts; null otherwise.",
    },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  PayoutWebhookBody: {
    status: { enum: [...PAYOUT_STATUSES] },
    pixKeyType: { enum: [...PIX_KEY_TYPES] },
    currency: { enum: ["BRL"] },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  // Every code of this version, METHOD_NOT_ALLOWED included: no operation lists it (it answers a method
  // a path does not have), yet a client meets it, so the vocabulary says it.
  ErrorBody: {
    code: {
      enum: [...ERROR_CODES],
      description:
        "Every error code this version knows; each operation lists those it answers. METHOD_NOT_ALLOWED (405) answers a method a path does not have. A later version may add codes.",
    },
  },
  PayoutListQuery: {
    startDate: DATE_FILTER,
    endDate: DATE_FILTER,
    page: { default: 1 },
    limit: { default: 10 },
  },
  PayinWebhookBody: {
    status: { enum: [...PAYIN_STATUSES] },
    paymentMethod: { enum: [...PAYMENT_METHODS] },
    referenceId: { type: "string" },
    "customer.email": { format: "email" },
    updatedAt: DATE_TIME,
  },
};

/** Drops zod's `additionalProperties: {}` (the JSON Schema default, but an index signature to generators). */
export function clean(node: unknown): void {
  if (Array.isArray(node)) for (const item of node) clean(item);
  else if (node !== null && typeof node === "object") {
    const obj = node as Json;
    const extra = obj.additionalProperties;
    if (extra !== null && typeof extra === "object" && Object.keys(extra).length === 0)
      delete obj.additionalProperties;
    // `anyOf: [{}, null]` (an opaque nullable value) already matches anything: say so plainly.
    if (
      Array.isArray(obj.anyOf) &&
      obj.anyOf.some((s) => typeof s === "object" && Object.keys(s).length === 0)
    )
      delete obj.anyOf;
    for (const value of Object.values(obj)) clean(value);
  }
}

export function applyPatch(component: string, root: Json, path: string, patch: Patch): void {
  const parts = path.split(".");
  let parent = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (part === "anyOf") {
      parent = (parent.anyOf as Json[])[Number(parts[++i])] as Json;
      continue;
    }
    let next = (parent.properties as Record<string, Json>)[part] as Json;
    // An optional-nullable object is `anyOf: [object, null]`: patch the object.
    if (next.anyOf && !next.properties && parts[i + 1] !== "anyOf")
      next = (next.anyOf as Json[]).find((s) => s.type === "object") as Json;
    parent = next;
  }
  const name = parts[parts.length - 1] as string;
  const props = parent.properties as Record<string, Json> | undefined;
  const target = props?.[name];
  if (!target) throw new Error(`openapi: no ${component}.${path}`);
  const { rule, required, ...keywords } = patch;
  if (required) parent.required = [...new Set([...((parent.required as string[]) ?? []), name])];
  // A nullable field keeps its null branch; the keywords go to the non-null one.
  const nonNull = Array.isArray(target.anyOf)
    ? ((target.anyOf as Json[]).find((s) => s.type !== "null") as Json)
    : target;
  if (keywords.type === "string" && target.type) {
    target.type = "string";
    delete keywords.type;
  }
  const { description, ...rest } = keywords;
  if (Array.isArray(nonNull.type) && (nonNull.type as string[]).includes("null") && rest.enum)
    rest.enum = [...(rest.enum as string[]), null];
  Object.assign(nonNull, rest);
  for (const [key, value] of Object.entries(rest)) if (value === undefined) delete nonNull[key];
  const words = [description, rule && `Rule ${rule}: ${OPENAPI_RULES[rule]}`].filter(Boolean);
  if (words.length > 0) target.description = words.join(" ");
  if (rule) target["x-paykit-rule"] = rule;
}

// pixKey's shape by pixKeyType, as if/then: what a JSON Schema can state of the rule (check digits, the
// e-mail rule beyond its format and the phone's area code stay the rule's).
const PIX_KEY_SHAPES: Record<PixKeyType, Json> = {
  CPF: { pattern: CPF_DIGITS.source },
  CNPJ: { pattern: CNPJ_CHARS.source },
  EMAIL: { format: "email", maxLength: MAX_EMAIL_KEY_LENGTH },
  PHONE: { pattern: `^\\+${PHONE_DIGITS.source.slice(1)}` },
  EVP: { pattern: EVP_KEY.source },
};

/** Keywords added at the root of a component: what a rule across two of its fields can state. */
const ROOT_KEYWORDS: Record<string, Json> = {
  PayoutCreateParams: {
    allOf: PIX_KEY_TYPES.map((type) => ({
      if: { properties: { pixKeyType: { const: type } }, required: ["pixKeyType"] },
      // `unevaluatedProperties: true` is JSON Schema's default, said out loud for Redocly: its example
      // check reads a subschema's `properties` as closed unless told (the other fields are the parent's).
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, never awaited.
      then: {
        properties: { pixKey: { type: "string", ...PIX_KEY_SHAPES[type] } },
        unevaluatedProperties: true,
      },
    })),
  },
};

/**
 * A text field's own pattern with the storable-text rule in it: `^[^X]*$` becomes the rule's pattern
 * refusing X too; a pattern that only lists what it takes (`^\d{4}$`: no negated class, no `.`, no
 * `\D`/`\S`/`\W`/`\P`) refuses NUL and surrogates already. Any other shape is a decision to make here.
 */
function withStorableText(pattern: string): string {
  const negated = /^\^\[\^([^\]]+)\]\*\$$/.exec(pattern);
  if (negated) return STORABLE_TEXT_PATTERN.replace("[^", `[^${negated[1]}`);
  if (!/\[\^|\.|\\[DSWP]/.test(pattern)) return pattern;
  throw new Error(`openapi: cannot add the storable-text rule to the pattern ${pattern}`);
}

// Every text field of a request refuses NUL and lone surrogates (docs/decisions/text.md): the
// document says so by a pattern on each, merged with the field's own. A PATCHES pattern (digits only)
// then replaces it with one that refuses them too.
const TO_JSON_SCHEMA = {
  target: "draft-2020-12",
  io: "input",
  unrepresentable: "any",
  override: ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Json }) => {
    if (!isStorableString(zodSchema)) return;
    jsonSchema.pattern =
      typeof jsonSchema.pattern === "string" ? withStorableText(jsonSchema.pattern) : STORABLE_TEXT_PATTERN;
  },
} as const;

/** The JSON Schema of every component, patched: the document's `components.schemas`. */
export function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string; description: string }>();
  for (const [id, schema, description] of COMPONENTS) registry.add(schema, { id, description });
  const { schemas } = z.toJSONSchema(registry, {
    ...TO_JSON_SCHEMA,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  for (const [name, schema] of Object.entries(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    clean(schema);
    for (const [path, patch] of Object.entries(PATCHES[name] ?? {})) applyPatch(name, schema, path, patch);
    Object.assign(schema, ROOT_KEYWORDS[name]);
  }
  return schemas;
}

/** What the document says of each query parameter of GET /payout, beside its schema. */
const LIST_QUERY_TEXT: Record<keyof PayoutListQuery, { description: string; example: unknown }> = {
  status: { description: "Only payouts in this status.", example: "COMPLETED" },
  startDate: {
    description:
      "createdAt at or after this RFC 3339 date-time (any offset, fraction digits or leap second; no " +
      "zone is UTC), or from the start of this date (UTC).",
    example: "2026-01-01T00:00:00Z",
  },
  endDate: {
    description:
      "createdAt at or before this RFC 3339 date-time (any offset, fraction digits or leap second; no " +
      "zone is UTC), or up to the end of this date (UTC).",
    example: "2026-01-31T23:59:59Z",
  },
  referenceId: { description: "Exact match on the merchant's id.", example: "withdrawal-77" },
  page: { description: "Page to return.", example: 1 },
  limit: { description: "Items per page.", example: 10 },
};

/** GET /payout's query parameters, each the JSON Schema of its field of `PayoutListQuery`, patched. */
export function listQueryParameters(): Json[] {
  const schema = z.toJSONSchema(PayoutListQuery, TO_JSON_SCHEMA) as Json;
  clean(schema);
  for (const [path, patch] of Object.entries(PATCHES.PayoutListQuery ?? {}))
    applyPatch("PayoutListQuery", schema, path, patch);
  return Object.entries(schema.properties as Record<string, Json>).map(([name, field]) => ({
    name,
    in: "query",
    required: false,
    ...LIST_QUERY_TEXT[name as keyof PayoutListQuery],
    schema: field,
  }));
}
