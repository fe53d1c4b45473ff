// The OpenAPI 3.1 document of the mock's control API (`GET /_mock/openapi.json`), derived from the
// control table: one operation per entry, its body and query parameters from the entry's zod schemas.
// The service's own document (`GET /openapi.json`, docs/openapi.json) stays the service's alone.
import * as z from "zod/mini";
import type { ControlCall, ControlScope } from "./call.js";
import { CONTROL_CALLS } from "./table.js";

type Json = Record<string, unknown>;

/** A zod schema as the JSON Schema of its input (what a caller sends). */
function jsonSchemaOf(schema: z.ZodMiniType): Json {
  const json = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Json;
  delete json.$schema;
  return json;
}

/** Who may make a call of each scope, in words, for its operation's description. */
const WHO: Record<ControlScope, string> = {
  open: "Anyone may call it, on a shared sandbox too.",
  global: "Concerns every account: needs the admin token on a shared sandbox.",
  allAccounts: "Concerns every account: needs the admin token on a shared sandbox (403 for account keys).",
  caller: "Answers the account whose keys (Basic pk:sk) the request is sent with, on any mock.",
  account: "On a shared sandbox, the account's own keys or the admin token.",
  payin: "On a shared sandbox, the keys of the payin's account or the admin token.",
  payout: "On a shared sandbox, the keys of the payout's account or the admin token.",
  delivery: "On a shared sandbox, the keys of the delivery's account or the admin token.",
  queried: "With `accountId`, that account's keys may call it on a shared sandbox; without, the admin token.",
  bodyAccount:
    "With `accountId` in the body, that account's keys may call it on a shared sandbox; without, the admin token.",
};

/** The query parameters of a call, from its query schema's properties. */
function queryParameters(schema: z.ZodMiniType | null): Json[] {
  if (schema === null) return [];
  const json = jsonSchemaOf(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

const ERROR_BODY: Json = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string" },
    message: { type: "string" },
    details: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
    },
  },
};

/** The OpenAPI operation of one control call. */
function operationOf(name: string, call: ControlCall<never, unknown, unknown>): Json {
  const parameters = [
    ...(call.path.includes(":id")
      ? [{ name: "id", in: "path", required: true, schema: { type: "string", minLength: 1 } }]
      : []),
    ...queryParameters(call.query),
  ];
  return {
    operationId: name,
    summary: call.summary,
    description: WHO[call.scope],
    tags: ["Mock control"],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(call.body === null
      ? {}
      : {
          requestBody: {
            required: false,
            content: { "application/json": { schema: jsonSchemaOf(call.body) } },
          },
        }),
    responses: {
      [String(call.status)]: { description: "Done.", content: { "application/json": { schema: {} } } },
      default: {
        description: "Refused: the error body of every non-2xx answer.",
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
      },
    },
  };
}

/**
 * The title of the control API's OpenAPI document (`GET /_mock/openapi.json`): how a client (the
 * `trigger` and `mcp` commands) recognises a Paykit mock before it sends anything.
 */
export const CONTROL_API_TITLE = "Paykit mock: control API";

/**
 * The OpenAPI 3.1 document of the mock's `/_mock` control API, one operation per entry of the
 * control table (the `operationId` is the `MockControl` method's name).
 */
export function controlOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const [name, call] of Object.entries(CONTROL_CALLS)) {
    const path = `/_mock${call.path.replace(":id", "{id}")}`;
    paths[path] ??= {};
    (paths[path] as Json)[call.method.toLowerCase()] = operationOf(name, call as never);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: CONTROL_API_TITLE,
      // the control API's own version, bumped when a call changes shape
      version: "1.0.0",
      description:
        "The mock's own control API under /_mock: accounts, the clock, payin and payout decisions, the " +
        "webhook delivery log, faults and the PIX key directory. Not part of the service.",
    },
    security: [{ adminToken: [] }, { accountKeys: [] }, {}],
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "The mock's --admin-token, when set." },
        accountKeys: {
          type: "http",
          scheme: "basic",
          description: "On a shared sandbox: an account's own keys (public key : secret key).",
        },
      },
      schemas: { ErrorBody: ERROR_BODY },
    },
  };
}
