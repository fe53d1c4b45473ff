import * as z from "zod/mini";
import { ErrorBody } from "./error.js";
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
import { PAYOUT_STATUSES } from "./status.js";
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

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: Json) => ({ "application/json": { schema } });
const errors = (...statuses: number[]): Json =>
  Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
  );

const ERROR_RESPONSES: Record<number, string> = {
  400: "Invalid request (INVALID_DATA with details) or a business refusal with its code.",
  401: "Missing or invalid credentials (UNAUTHORIZED).",
  403: "KYC not approved (KYC_NOT_APPROVED) or card processing not enabled (CREDIT_CARD_NOT_ENABLED).",
  404: "Not found, or owned by another account (NOT_FOUND).",
  413: "Body over 1 MiB (PAYLOAD_TOO_LARGE).",
  415: "POST without a JSON content type (UNSUPPORTED_MEDIA_TYPE).",
  429: "Rate limited (RATE_LIMITED); see Retry-After.",
  502: "Acquirer or bank failure (PROVIDER_ERROR, TEMPORARY_UNAVAILABLE, PROVIDER_REJECTED).",
};

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
  for (const schema of Object.values(schemas)) delete schema.$schema;

  const query = (name: string, schema: Json, description: string) => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
  });

  return {
    openapi: "3.1.0",
    info: {
      title: "Payment Collection and PIX Payout Service",
      version,
      description:
        "Payins by PIX, BOLETO, CREDIT_CARD and OPEN_FINANCE, payouts to a PIX key, and their webhooks. " +
        "Amounts are integer cents of BRL. Generated from @paykit/contract.",
    },
    servers: [{ url: "{baseUrl}", variables: { baseUrl: { default: "http://127.0.0.1:4010" } } }],
    security: [{ basicAuth: [] }],
    paths: {
      "/payin": {
        post: {
          operationId: "createPayin",
          summary: "Create a payin",
          requestBody: { required: true, content: json(ref("PayinCreateParams")) },
          responses: {
            "201": { description: "The payin, with its payment data.", content: json(ref("PayinCreated")) },
            ...errors(400, 401, 403, 413, 415, 429, 502),
          },
          callbacks: {
            statusChanged: {
              "{$request.body#/webhookUrl}": {
                post: {
                  requestBody: { content: json(ref("PayinWebhookBody")) },
                  responses: { "200": { description: "Any 2xx acknowledges the delivery." } },
                },
              },
            },
          },
        },
      },
      "/payin/{id}": {
        get: {
          operationId: "retrievePayin",
          summary: "Retrieve a payin",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "The payin record.", content: json(ref("Payin")) },
            ...errors(401, 403, 404, 429),
          },
        },
      },
      "/payout": {
        post: {
          operationId: "createPayout",
          summary: "Create a payout to a PIX key",
          requestBody: { required: true, content: json(ref("PayoutCreateParams")) },
          responses: {
            "201": { description: "The payout record.", content: json(ref("Payout")) },
            ...errors(400, 401, 403, 413, 415, 429, 502),
          },
          callbacks: {
            statusChanged: {
              "{$request.body#/webhookUrl}": {
                post: {
                  requestBody: { content: json(ref("PayoutWebhookBody")) },
                  responses: { "200": { description: "Any 2xx acknowledges the delivery." } },
                },
              },
            },
          },
        },
        get: {
          operationId: "listPayouts",
          summary: "List payouts, newest first",
          parameters: [
            query("status", { type: "string", enum: [...PAYOUT_STATUSES] }, "Only payouts in this status."),
            query("startDate", { type: "string" }, "ISO 8601; createdAt at or after."),
            query("endDate", { type: "string" }, "ISO 8601; createdAt at or before."),
            query("referenceId", { type: "string" }, "Exact match on the merchant's id."),
            query("page", { type: "integer", minimum: 1, default: 1 }, "Page to return."),
            query("limit", { type: "integer", minimum: 1, maximum: 100, default: 10 }, "Items per page."),
          ],
          responses: {
            "200": { description: "One page of payouts.", content: json(ref("PayoutList")) },
            ...errors(400, 401, 403, 429),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        basicAuth: {
          type: "http",
          scheme: "basic",
          description: "Basic base64(publicKey:secretKey).",
        },
      },
      schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, description]) => [
          `Error${status}`,
          { description, content: json(ref("ErrorBody")) },
        ]),
      ),
    },
  };
}
