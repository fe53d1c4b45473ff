// The control API's tools, derived from the control table: each tool is one entry, its name the
// `MockControl` method's, its description the entry's summary, its arguments the entry's body and
// query schemas (plus `id` when the path acts on a payin, a payout or a delivery). What concerns the
// session's own account is filled in by the server, never asked of the agent.
import type { ControlCall, ControlRequest } from "../control/call.js";
import { CONTROL_CALLS, type ControlCallName } from "../control/table.js";
import type { AccountKeys } from "../domain/accounts.js";
import type { Sandbox } from "./sandbox.js";
import { type JsonObject, jsonSchemaOf, type McpTool } from "./tool.js";
import { ToolError } from "./tool-error.js";
import { WITHHELD } from "./withheld.js";

/**
 * The control calls an agent gets. Left out, because they reach beyond the session's account, which a
 * coding agent on a shared sandbox (or on the mock a whole test suite uses) must not touch: `reset`
 * (the whole sandbox, every account), `clock`/`setClock` (the sandbox clock, which moves every
 * account: `setAccountClock` moves the session's own), `setRateLimit` (every account's requests),
 * `accounts` (every account of a mock without access rules). `rotateWebhookSecret` is left out too:
 * the developer's receiver holds the current secret, and a rotation an agent makes breaks it.
 */
export const AGENT_CONTROL_CALLS = [
  "createAccount",
  "getAccount",
  "updateAccount",
  "resetAccount",
  "accountClock",
  "setAccountClock",
  "payins",
  "payouts",
  "payPayin",
  "authorizePayin",
  "expirePayin",
  "completeThreeDS",
  "approvePayout",
  "rejectPayout",
  "advancePayout",
  "failPayout",
  "refundPayout",
  "webhooks",
  "flushWebhooks",
  "redeliverWebhook",
  "faults",
  "addFault",
  "clearFaults",
  "pixKeys",
  "registerPixKey",
] as const satisfies readonly ControlCallName[];

type AnyCall = ControlCall<never, unknown, unknown>;

/** What the id of a path names, by the call's scope. */
const ID_OF: Partial<Record<AnyCall["scope"], string>> = {
  payin: "The payin's id (pi_…)",
  payout: "The payout's id (po_…)",
  delivery: "The webhook delivery's id (from the webhooks tool)",
};

/** A word on whose records a call acts, by its scope. */
const ACTS_ON: Partial<Record<AnyCall["scope"], string>> = {
  account: " Acts on this session's account.",
  queried: " Of this session's account.",
  bodyAccount: " For this session's account.",
};

/** How many deliveries one page of the `webhooks` tool holds unless the agent asks for another `limit`. */
export const AGENT_WEBHOOKS_PAGE = 20;

/** What a tool does differently from its control call, said in its description. */
const NOTES: Partial<Record<ControlCallName, string>> = {
  webhooks:
    ` Here newest first unless order is "oldest", ${AGENT_WEBHOOKS_PAGE} a page unless limit says otherwise;` +
    " resourceId finds the deliveries of the payin or payout you just moved, and nextCursor (passed as cursor," +
    " with the same filters) the next page.",
};

/** The properties and required names of an object schema's JSON Schema. */
function objectParts(schema: AnyCall["body"], name: string): { properties: JsonObject; required: string[] } {
  if (schema === null) return { properties: {}, required: [] };
  const json = jsonSchemaOf(schema) as { type?: unknown; properties?: JsonObject; required?: string[] };
  if (json.type !== "object") throw new Error(`control call ${name}: its schema is not an object`);
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}

/** How one control call becomes a tool: its schema's fields, and which of them the session fills in. */
function controlTool(name: ControlCallName, call: AnyCall): McpTool {
  const body = objectParts(call.body, name);
  const query = objectParts(call.query, name);
  // The session's account fills the account of the path, of `?accountId=` and of a body's `accountId`.
  const filled = call.scope === "queried" || call.scope === "bodyAccount" ? "accountId" : undefined;
  const properties: JsonObject = {};
  const required: string[] = [];
  const idDescription = ID_OF[call.scope];
  if (call.path.includes(":id") && idDescription !== undefined) {
    properties.id = { type: "string", minLength: 1, description: idDescription };
    required.push("id");
  }
  for (const part of [body, query]) {
    for (const [field, schema] of Object.entries(part.properties)) {
      if (field === filled) continue;
      if (Object.hasOwn(properties, field))
        throw new Error(`control call ${name}: field ${field} is in two places`);
      properties[field] = schema;
    }
    required.push(...part.required.filter((field) => field !== filled));
  }
  const inputSchema: JsonObject = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  return {
    name,
    description: `${call.summary} (mock control API: ${call.method} /_mock${call.path}).${ACTS_ON[call.scope] ?? ""}${NOTES[name] ?? ""}`,
    inputSchema,
    async run(args, sandbox) {
      const unknown = Object.keys(args).filter((field) => !Object.hasOwn(properties, field));
      if (unknown.length > 0)
        throw new ToolError(
          "INVALID_DATA",
          `unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
          {
            details: unknown.map((path) => ({ path, message: "is not a field of this tool" })),
          },
        );
      const pick = (fields: JsonObject) =>
        Object.fromEntries(Object.entries(args).filter(([field]) => Object.hasOwn(fields, field)));
      const request: ControlRequest = {
        body: call.body === null ? undefined : pick(body.properties),
        query: call.query === null ? undefined : (pick(query.properties) as ControlRequest["query"]),
      };
      if (call.scope === "account") request.id = (await sandbox.account()).accountId;
      else if (Object.hasOwn(properties, "id")) {
        if (typeof args.id !== "string" || args.id === "")
          throw new ToolError("INVALID_DATA", "id is required: the id of the resource the call acts on", {
            details: [{ path: "id", message: "is required" }],
          });
        request.id = args.id;
      }
      if (filled !== undefined) {
        const accountId = (await sandbox.account()).accountId;
        if (call.scope === "queried") request.query = { ...request.query, accountId };
        else request.body = { ...(request.body as JsonObject), accountId };
      }
      const sent = BEFORE[name]?.(request, sandbox) ?? request;
      const answer = await sandbox.control(call, sent);
      return AFTER[name]?.(answer, args, sandbox) ?? answer;
    },
  };
}

/** What the session adds to a call's request before it is sent. */
const BEFORE: Partial<
  Record<ControlCallName, (request: ControlRequest, sandbox: Sandbox) => ControlRequest>
> = {
  // An agent looks for what just happened: the newest deliveries first, a page it can read.
  webhooks: (request) => ({
    ...request,
    query: { order: "newest", limit: AGENT_WEBHOOKS_PAGE, ...definedOnly(request.query) },
  }),
  // An account signs its deliveries with the receiver's secret (--webhook-secret) unless the agent
  // gave one: a receiver that verifies, as every receiver should, then accepts them.
  createAccount: (request, sandbox) => {
    const body = (request.body ?? {}) as JsonObject;
    const secret = sandbox.receiverWebhookSecret;
    return body.webhookSecret !== undefined || secret === undefined
      ? request
      : { ...request, body: { ...body, webhookSecret: secret } };
  },
};

function definedOnly(query: ControlRequest["query"]): NonNullable<ControlRequest["query"]> {
  return Object.fromEntries(Object.entries(query ?? {}).filter(([, value]) => value !== undefined));
}

/** What a call's answer changes in the session, and how it is shown. */
const AFTER: Partial<
  Record<ControlCallName, (answer: unknown, args: JsonObject, sandbox: Sandbox) => unknown>
> = {
  // The new account becomes the session's; its secret key and webhook secret stay with the server.
  // What is said of the webhook secret is what the mock answered: withheld when the account has one,
  // `webhookSigned: false` and how to sign when it has none (getAccount says the same); see
  // docs/decisions/mcp-account-signing-and-secrets.md.
  createAccount: (answer, args, sandbox) => {
    const account = answer as AccountKeys;
    sandbox.adopt(account);
    const signed = typeof account.webhookSecret === "string";
    const keys =
      "The later tools of this session act on this account, with its keys, which this MCP server keeps.";
    const signing = !signed
      ? "Its webhook deliveries are unsigned (webhookSigned: false), and a receiver that verifies signatures " +
        "refuses them: give updateAccount the webhookSecret your receiver is configured with, or start this " +
        "MCP server with --webhook-secret (or PAYKIT_WEBHOOK_SECRET) so that createAccount uses it."
      : typeof args.webhookSecret === "string"
        ? "Its webhook deliveries are signed with the webhookSecret you gave."
        : "Its webhook deliveries are signed with your receiver's webhook secret, the one this MCP server " +
          "was started with (--webhook-secret or PAYKIT_WEBHOOK_SECRET).";
    return {
      accountId: account.accountId,
      publicKey: account.publicKey,
      secretKey: WITHHELD,
      ...(signed ? { webhookSecret: WITHHELD } : {}),
      webhookSigned: signed,
      note: `${keys} ${signing}`,
    };
  },
  updateAccount: (answer, args, sandbox) => {
    if (typeof args.webhookSecret === "string") sandbox.setWebhookSecret(args.webhookSecret);
    return answer;
  },
};

/** The control tools, in the order of {@link AGENT_CONTROL_CALLS}. */
export function controlTools(): McpTool[] {
  return AGENT_CONTROL_CALLS.map((name) => controlTool(name, CONTROL_CALLS[name] as unknown as AnyCall));
}
