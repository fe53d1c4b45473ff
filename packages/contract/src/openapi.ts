/**
 * The OpenAPI 3.1 document of the whole service, generated from the contract's schemas, with its
 * examples and the rules a JSON Schema cannot state. A subpath of its own, so that importing the
 * contract does not load the generator.
 *
 * @packageDocumentation
 * @module @paykit/contract/openapi
 */
import * as z from "zod/mini";
import { ERROR_CODES, ERROR_STATUS, ErrorBody, type KnownErrorCode } from "./error.js";
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
import { Payout, PayoutCreateParams, PayoutList } from "./payout.js";
import { PAYIN_STATUSES, PAYMENT_METHODS, PAYOUT_STATUSES } from "./status.js";
import { PIX_KEY_TYPES } from "./validators/index.js";
import { PayinWebhookBody, PayoutWebhookBody } from "./webhook.js";

type Json = Record<string, unknown>;

const COMPONENTS: Array<[string, z.ZodMiniType, string]> = [
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
  "br-phone": "55 + area code + number, digits only, 12 or 13 digits, with a valid area code (INVALID_DATA).",
  cep: "A CEP: exactly 8 digits (INVALID_DATA).",
  email: "An e-mail address the service accepts (stricter than RFC 5322 in places) (INVALID_DATA).",
  ipv4: "A dotted-quad IPv4 address (INVALID_DATA).",
  "http-url": "An absolute http(s) URL (INVALID_DATA).",
  luhn: "A card number of 13-19 digits passing the Luhn check (INVALID_DATA).",
  "card-not-expired": "expirationMonth/expirationYear not in the past (INVALID_DATA).",
  "pix-key-matches-type":
    "pixKey must be a valid key of pixKeyType and exist in the PIX directory (INVALID_PIX_KEY).",
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
const CUSTOMER_RULES: Record<string, Patch> = {
  "customer.document": { rule: "cpf-check-digits", pattern: "^[0-9]{11}$", examples: ["52998224725"] },
  "customer.phone": { rule: "br-phone", pattern: "^55[0-9]{10,11}$", examples: ["5511987654321"] },
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
const PATCHES: Record<string, Record<string, Patch>> = {
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
  PayinWebhookBody: {
    status: { enum: [...PAYIN_STATUSES] },
    paymentMethod: { enum: [...PAYMENT_METHODS] },
    referenceId: { type: "string" },
    "customer.email": { format: "email" },
    updatedAt: DATE_TIME,
  },
};

/** Drops zod's `additionalProperties: {}` (the JSON Schema default, but an index signature to generators). */
function clean(node: unknown): void {
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

function applyPatch(component: string, root: Json, path: string, patch: Patch): void {
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
  const words = [description, rule && `Rule ${rule}: ${OPENAPI_RULES[rule]}`].filter(Boolean);
  if (words.length > 0) target.description = words.join(" ");
  if (rule) target["x-paykit-rule"] = rule;
}
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: Json, example?: unknown) => ({
  "application/json": example === undefined ? { schema } : { schema, example },
});

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request (INVALID_DATA with `details`) or a business refusal with its code.",
  401: "Missing or invalid credentials.",
  403: "KYC not approved, or card processing not enabled.",
  404: "Not found, or owned by another account.",
  413: "Body over 1 MiB.",
  415: "POST without a JSON content type.",
  429: "Rate limited; retry after the `Retry-After` seconds.",
  500: "Unexpected failure of the service.",
  502: "Acquirer or bank failure.",
};

const ERROR_MESSAGES: Record<KnownErrorCode, string> = {
  INVALID_DATA: "customer.document: must be a valid CPF (11 digits, digits only)",
  REJECTED_BY_RISK: "Denied by antifraud",
  PAYER_LIMIT_REJECTED: "Insufficient card limit",
  INVALID_CVV: "Wrong CVV",
  PROVIDER_ERROR: "Temporary acquirer failure",
  INSUFFICIENT_FUNDS: "Available balance is too low",
  INVALID_PIX_KEY: "PIX key invalid or not found in the directory",
  BEYOND_LIMITS: "Amount exceeds the limit allowed at this time of day",
  TEMPORARY_UNAVAILABLE: "Acquirer temporarily unavailable; retry in 5 to 10 minutes",
  PROVIDER_REJECTED: "Transfer rejected by the banking system",
  UNAUTHORIZED: "Invalid or missing credentials",
  KYC_NOT_APPROVED: "Account KYC not approved",
  CREDIT_CARD_NOT_ENABLED: "Card processing is not enabled for this account",
  NOT_FOUND: "Not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  PAYLOAD_TOO_LARGE: "Body over 1 MiB",
  UNSUPPORTED_MEDIA_TYPE: "Content-Type must be application/json",
  RATE_LIMITED: "Too many requests",
  INTERNAL_ERROR: "Internal error",
};

const HEADERS: Record<number, Json> = {
  401: {
    "WWW-Authenticate": {
      description: 'The authentication scheme to use: `Basic realm="Paykit"`.',
      required: true,
      schema: { type: "string", pattern: "^Basic( |$)" },
    },
  },
  429: {
    "Retry-After": {
      description: "Seconds to wait before retrying.",
      required: true,
      schema: { type: "integer", minimum: 0 },
    },
  },
};

/** The error answers of one operation, the body's `code` narrowed to what that operation can give. */
function errorResponses(codes: readonly KnownErrorCode[]): Json {
  const byStatus = new Map<number, KnownErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => {
      const first = list[0] as KnownErrorCode;
      const example: Json = { code: first, message: ERROR_MESSAGES[first] };
      if (first === "INVALID_DATA")
        example.details = [
          { path: "customer.document", message: "must be a valid CPF (11 digits, digits only)" },
        ];
      const schema = {
        allOf: [ref("ErrorBody"), { type: "object", properties: { code: { type: "string", enum: list } } }],
      };
      const response: Json = {
        description: `${STATUS_TEXT[status]} Codes: ${list.join(", ")}.`,
        content: json(schema, example),
      };
      if (HEADERS[status]) response.headers = HEADERS[status];
      return [String(status), response];
    }),
  );
}

const COMMON: KnownErrorCode[] = ["UNAUTHORIZED", "KYC_NOT_APPROVED", "RATE_LIMITED", "INTERNAL_ERROR"];
const POST_COMMON: KnownErrorCode[] = ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

const NOW = "2026-01-31T12:00:00.000Z";
const LATER = "2026-01-31T12:00:05.000Z";
const CUSTOMER = {
  name: "Maria Silva",
  document: "52998224725",
  email: "maria.santos@example.com",
  phone: "5511987654321",
  address: {
    street: "Avenida Paulista",
    number: "1000",
    zipCode: "01310100",
    city: "São Paulo",
    state: "SP",
  },
};
const PIX_REQUEST = {
  paymentMethod: "PIX",
  amount: 1990,
  referenceId: "order-1001",
  isPhysicalProduct: false,
  payerIp: "203.0.113.7",
  items: [{ title: "Monthly plan", quantity: 1, unitPrice: 1990 }],
  webhookUrl: "https://merchant.example.com/webhooks/paykit",
  customer: CUSTOMER,
};
const PIX_CREATED = {
  id: "pi_3f2a9c1b7d4e",
  externalId: "acq_8812734",
  referenceId: "order-1001",
  status: "PENDING",
  amount: 1990,
  paymentMethod: "PIX",
  createdAt: NOW,
  pix: {
    qrcode:
      "00020126330014br.gov.bcb.pix0111529982247255204000053039865406019.905802BR5911Maria Silva6009SAO PAULO62160512pi3f2a9c1b7d4e6304ABCD",
  },
};
const PAYIN = {
  id: "pi_3f2a9c1b7d4e",
  externalId: "acq_8812734",
  referenceId: "order-1001",
  status: "APPROVED",
  amount: 1990,
  currency: "BRL",
  paymentMethod: "PIX",
  installments: null,
  customer: CUSTOMER,
  items: [{ title: "Monthly plan", quantity: 1, unitPrice: 1990 }],
  pixCopyAndPaste: PIX_CREATED.pix.qrcode,
  boletoBarcode: null,
  boletoUrl: null,
  netAmount: 1930,
  reservedAmount: 0,
  createdAt: NOW,
  updatedAt: LATER,
};
const PAYOUT_REQUEST = {
  amount: 15000,
  pixKey: "maria.santos@example.com",
  pixKeyType: "EMAIL",
  referenceId: "withdrawal-77",
  beneficiaryName: "Maria Silva",
  beneficiaryDocument: "52998224725",
  webhookUrl: "https://merchant.example.com/webhooks/paykit",
};
const PAYOUT = {
  id: "po_9b1c2d3e4f5a",
  externalId: null,
  status: "PENDING",
  amount: 15000,
  currency: "BRL",
  pixKey: "maria.santos@example.com",
  pixKeyType: "EMAIL",
  referenceId: "withdrawal-77",
  beneficiaryName: "Maria Silva",
  beneficiaryDocument: "52998224725",
  feeAmount: null,
  netAmount: null,
  failureCode: null,
  createdAt: NOW,
  updatedAt: NOW,
};
const PAYIN_WEBHOOK = {
  id: "pi_3f2a9c1b7d4e",
  status: "APPROVED",
  paymentMethod: "PIX",
  amount: 1990,
  referenceId: "order-1001",
  customer: { name: "Maria Silva", email: "maria.santos@example.com" },
  updatedAt: LATER,
};

/** The example of each request and 2xx response, by component name (checked against the schemas in a test). */
export const OPENAPI_EXAMPLES: Record<string, unknown> = {
  PayinCreateParams: PIX_REQUEST,
  PayinCreated: PIX_CREATED,
  Payin: PAYIN,
  PayoutCreateParams: PAYOUT_REQUEST,
  Payout: PAYOUT,
  PayoutList: { data: [PAYOUT], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } },
  PayinWebhookBody: PAYIN_WEBHOOK,
  PayoutWebhookBody: {
    ...PAYOUT,
    status: "COMPLETED",
    externalId: "E1234567820260131120000000001",
    feeAmount: 50,
    netAmount: 14950,
  },
};

const WEBHOOK_HEADER_PARAMS = [
  ["webhook-id", "Unique id of the delivery; the same on every retry (deduplicate on it).", "msg_2b7f1c"],
  ["webhook-timestamp", "Unix seconds when the delivery was signed; reject if far from now.", "1769860805"],
  [
    "webhook-signature",
    "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (Standard Webhooks), " +
      "one per active secret (two during a rotation). The service signs every delivery; only a mock " +
      "account created without a webhook secret (a test affordance) sends none.",
    "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  ],
].map(([name, description, example]) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
  example,
}));

function webhook(kind: "payin" | "payout"): Json {
  const body = kind === "payin" ? "PayinWebhookBody" : "PayoutWebhookBody";
  return {
    post: {
      operationId: `${kind}StatusChanged`,
      summary: `A ${kind} changed status`,
      description:
        `POSTed to the ${kind}'s \`webhookUrl\` on every status change after creation, signed per Standard Webhooks ` +
        "scheme. Answer any 2xx; other answers and timeouts (10 s) are retried 7 times with growing delays.",
      tags: ["Webhooks"],
      security: [],
      parameters: WEBHOOK_HEADER_PARAMS,
      requestBody: { required: true, content: json(ref(body), OPENAPI_EXAMPLES[body]) },
      responses: { "200": { description: "Any 2xx acknowledges the delivery." } },
    },
  };
}

/**
 * Builds the OpenAPI 3.1 document of the whole service from the contract's schemas. The schemas are
 * the source; `docs/openapi.json` is this function's output (`pnpm openapi`).
 */
export function buildOpenApiDocument(version = "0.1.0"): Json {
  const registry = z.registry<{ id: string; description: string }>();
  for (const [id, schema, description] of COMPONENTS) registry.add(schema, { id, description });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  for (const [name, schema] of Object.entries(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    clean(schema);
    for (const [path, patch] of Object.entries(PATCHES[name] ?? {})) applyPatch(name, schema, path, patch);
  }

  const query = (name: string, schema: Json, description: string, example: unknown) => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
    example,
  });

  return {
    openapi: "3.1.0",
    info: {
      title: "Payment Collection and PIX Payout Service",
      version,
      description:
        "Payins by PIX, BOLETO, CREDIT_CARD and OPEN_FINANCE, payouts to a PIX key, and their webhooks. " +
        "Amounts are integer cents of BRL. Generated from @paykit/contract.\n\n" +
        "Rules a JSON Schema cannot state are named on their fields (`x-paykit-rule`) and listed in " +
        "`x-paykit-rules`. Every text field of a request, inside `split` rules and 3DS data too, must not " +
        "contain a lone UTF-16 surrogate or a NUL character (INVALID_DATA on that field). " +
        "Response objects may gain fields and enums may gain values in a later version: " +
        "clients should ignore unknown fields and keep unknown status strings.",
      license: { name: "MIT", identifier: "MIT" },
      contact: { name: "Paykit maintainers" },
    },
    servers: [{ url: "http://127.0.0.1:4010", description: "The local @paykit/mock-server (default port)." }],
    security: [{ basicAuth: [] }],
    tags: [
      { name: "Payins", description: "Collect money by PIX, BOLETO, CREDIT_CARD or OPEN_FINANCE." },
      { name: "Payouts", description: "Send money from the balance to a PIX key." },
      { name: "Webhooks", description: "Status changes POSTed to the merchant's webhookUrl." },
    ],
    "x-paykit-rules": OPENAPI_RULES,
    paths: {
      "/payin": {
        post: {
          operationId: "createPayin",
          summary: "Create a payin",
          description:
            "Creates a payin; the answer carries the payment data of its method. Status changes are " +
            "delivered to `webhookUrl` (see the `payinStatusChanged` webhook).",
          tags: ["Payins"],
          requestBody: { required: true, content: json(ref("PayinCreateParams"), PIX_REQUEST) },
          responses: {
            "201": {
              description: "The payin, with its payment data.",
              content: json(ref("PayinCreated"), PIX_CREATED),
            },
            ...errorResponses([
              "INVALID_DATA",
              "REJECTED_BY_RISK",
              "PAYER_LIMIT_REJECTED",
              "INVALID_CVV",
              ...COMMON,
              "CREDIT_CARD_NOT_ENABLED",
              ...POST_COMMON,
              "PROVIDER_ERROR",
            ]),
          },
        },
      },
      "/payin/{id}": {
        get: {
          operationId: "retrievePayin",
          summary: "Retrieve a payin",
          description: "The payin record, with its current status.",
          tags: ["Payins"],
          parameters: [
            {
              name: "id",
              in: "path",
              required: true,
              description: "The payin's id.",
              schema: { type: "string" },
              example: "pi_3f2a9c1b7d4e",
            },
          ],
          responses: {
            "200": { description: "The payin record.", content: json(ref("Payin"), PAYIN) },
            ...errorResponses([...COMMON, "NOT_FOUND"]),
          },
        },
      },
      "/payout": {
        post: {
          operationId: "createPayout",
          summary: "Create a payout to a PIX key",
          description:
            "Sends `amount` from the available balance to a PIX key. Status changes are delivered to " +
            "`webhookUrl` (see the `payoutStatusChanged` webhook).",
          tags: ["Payouts"],
          requestBody: { required: true, content: json(ref("PayoutCreateParams"), PAYOUT_REQUEST) },
          responses: {
            "201": { description: "The payout record.", content: json(ref("Payout"), PAYOUT) },
            ...errorResponses([
              "INVALID_DATA",
              "INSUFFICIENT_FUNDS",
              "INVALID_PIX_KEY",
              "BEYOND_LIMITS",
              ...COMMON,
              ...POST_COMMON,
              "TEMPORARY_UNAVAILABLE",
              "PROVIDER_REJECTED",
            ]),
          },
        },
        get: {
          operationId: "listPayouts",
          summary: "List payouts, newest first",
          description: "One page of the account's payouts, filtered; dates filter `createdAt` inclusively.",
          tags: ["Payouts"],
          parameters: [
            query(
              "status",
              { type: "string", enum: [...PAYOUT_STATUSES] },
              "Only payouts in this status.",
              "COMPLETED",
            ),
            query(
              "startDate",
              { type: "string", format: "date-time" },
              "ISO 8601; createdAt at or after.",
              "2026-01-01T00:00:00Z",
            ),
            query(
              "endDate",
              { type: "string", format: "date-time" },
              "ISO 8601; createdAt at or before.",
              "2026-01-31T23:59:59Z",
            ),
            query(
              "referenceId",
              { type: "string", minLength: 1, maxLength: 100 },
              "Exact match on the merchant's id.",
              "withdrawal-77",
            ),
            query("page", { type: "integer", minimum: 1, default: 1 }, "Page to return.", 1),
            query("limit", { type: "integer", minimum: 1, maximum: 100, default: 10 }, "Items per page.", 10),
          ],
          responses: {
            "200": {
              description: "One page of payouts.",
              content: json(ref("PayoutList"), OPENAPI_EXAMPLES.PayoutList),
            },
            ...errorResponses(["INVALID_DATA", ...COMMON]),
          },
        },
      },
    },
    webhooks: { payinStatusChanged: webhook("payin"), payoutStatusChanged: webhook("payout") },
    components: {
      securitySchemes: {
        basicAuth: {
          type: "http",
          scheme: "basic",
          description: "HTTP Basic with the public key as user and the secret key as password.",
        },
      },
      schemas,
    },
  };
}
