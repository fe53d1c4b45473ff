// The control API's HTTP routes, derived from the control table (control/table.ts): each entry's
// method and path under /_mock, its access rule, its body (none, or JSON checked by its schema) and
// query (checked by its schema) and its operation. Nothing about one call is written here.
import type { ControlCall } from "../control/call.js";
import { checkedInput } from "../control/direct.js";
import { controlOpenApiDocument } from "../control/openapi.js";
import { CONTROL_CALLS } from "../control/table.js";
import { AfterCommit, type ControlContext, ControlOperations } from "../domain/control.js";
import { ApiError } from "../domain/errors.js";
import { controlBody, documentRoute, noBody, ok } from "./bodies.js";
import { accessOf } from "./control-access.js";
import type { Route } from "./router.js";

// Query values that are numbers or booleans on the typed side; the rest stay text for the schema.
const NUMERIC = new Set(["limit"]);
const BOOLEAN = new Set(["awaitWebhooks"]);

/**
 * A control call's query as its schema reads it: a key given twice is refused, an empty `accountId`
 * is none (the dashboard's "all accounts"), `limit` digits a number, `true`/`false` a boolean; unknown
 * keys are left for the schema to refuse, so a misspelt option is never silently ignored.
 */
export function readControlQuery(query: string): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    if (key in raw)
      throw new ApiError("INVALID_DATA", `${key} is given twice`, {
        details: [{ path: key, message: "is given twice" }],
      });
    if (key === "accountId" && value === "") continue;
    if (NUMERIC.has(key) && /^\d+$/.test(value)) raw[key] = Number(value);
    else if (BOOLEAN.has(key) && (value === "true" || value === "false")) raw[key] = value === "true";
    else raw[key] = value;
  }
  return raw;
}

/** The route of one control call. */
function routeOf(context: ControlContext, call: ControlCall<never, unknown, unknown>): Route {
  return {
    method: call.method,
    path: `/_mock${call.path}`,
    kind: "control",
    access: ({ req, params, turn }) => accessOf(call.scope, turn, req, params),
    ...(call.method === "GET" ? { writes: false as const } : {}),
    handle: async ({ req, params, caller, turn }) => {
      let body: unknown;
      // a call that takes no body refuses one (`null`, `[]`, `42`, fields) before it acts
      if (call.body === null) noBody(req);
      else body = checkedInput(call.body, controlBody(req));
      const query = call.query === null ? {} : checkedInput(call.query, readControlQuery(req.query));
      const input = { id: params.id ?? "", body, query, caller };
      const answer = await call.run(new ControlOperations(turn, context), input as never);
      return answer instanceof AfterCommit
        ? new AfterCommit(async () => ok(await answer.wait(), call.status))
        : ok(answer, call.status);
    },
  };
}

/**
 * Every control route, one per entry of the control table, and the control API's OpenAPI document
 * (`GET /_mock/openapi.json`, open like the service's `/openapi.json`; built on first use).
 */
export function controlRoutes(context: ControlContext): Route[] {
  return [
    ...Object.values(CONTROL_CALLS).map((call) => routeOf(context, call as never)),
    documentRoute("/_mock/openapi.json", controlOpenApiDocument),
  ];
}
