/**
 * The OpenAPI 3.1 document of the whole service, generated from the contract's schemas, with its
 * examples and the rules a JSON Schema cannot state. A subpath of its own, so that importing the
 * contract does not load the generator.
 *
 * @packageDocumentation
 * @module @paykit/contract/openapi
 */
import { ERROR_STATUS, type KnownErrorCode } from "./error.js";
import {
  ERROR_MESSAGES,
  OPENAPI_EXAMPLES,
  PAYIN,
  PAYOUT,
  PAYOUT_REQUEST,
  PIX_CREATED,
  PIX_REQUEST,
} from "./openapi-examples.js";
import { componentSchemas, type Json, listQueryParameters, OPENAPI_RULES } from "./openapi-schemas.js";

export { OPENAPI_EXAMPLES } from "./openapi-examples.js";
export { OPENAPI_RULES, type OpenApiRule } from "./openapi-schemas.js";

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
  const schemas = componentSchemas();

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
              links: {
                retrievePayin: {
                  operationId: "retrievePayin",
                  parameters: { id: "$response.body#/id" },
                  description: "The payin's record, with its current status: GET /payin/{id} with its `id`.",
                },
              },
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
            "201": {
              description: "The payout record.",
              content: json(ref("Payout"), PAYOUT),
              // The spec has no GET /payout/{id}: the list filtered by the payout's unique referenceId finds it.
              links: {
                listPayoutsByReferenceId: {
                  operationId: "listPayouts",
                  parameters: { referenceId: "$response.body#/referenceId" },
                  description:
                    "The payout as it is now: GET /payout with its `referenceId` (unique per account) lists it alone.",
                },
              },
            },
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
          parameters: listQueryParameters(),
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
