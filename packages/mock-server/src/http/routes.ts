import { validate } from "@paykit/contract";
import { buildOpenApiDocument } from "@paykit/contract/openapi";
import type * as z from "zod/mini";
import type { ControlCallOptions, ControlListOptions, ControlOperations } from "../domain/control.js";
import { AuthorizeBody, ChallengeBody, FailBody, ListQuery, ThreeDSBody } from "../domain/control-params.js";
import { ApiError, invalidData } from "../domain/errors.js";
import { constantTimeEqual } from "../domain/ids.js";
import { ownerOf } from "../domain/owners.js";
import { authorizePayin, completeThreeDS, createPayin, payinOf } from "../domain/payins.js";
import { createPayout, listPayouts, readListQuery } from "../domain/payouts.js";
import {
  orderOf,
  type PayinRecord,
  payinCreatedBody,
  payinJson,
  payoutCreatedJson,
} from "../domain/records.js";
import type { MockState } from "../domain/state.js";
import { parseTraceparent } from "../domain/trace-context.js";
import { boletoPdf } from "../pages/boleto-pdf.js";
import { type ClosedChallengeReason, challengePage, closedChallengePage } from "../pages/challenge-page.js";
import { renderDashboardPage } from "../pages/dashboard.js";
import { openFinanceDonePage, openFinancePage } from "../pages/open-finance-page.js";
import { threeDSScript } from "../pages/three-ds-script.js";
import type { ControlAccess } from "./control-access.js";
import {
  type EngineRequest,
  type EngineResponse,
  isJsonContentType,
  json,
  jsonText,
  parseJsonBody,
} from "./messages.js";
import { isCrossOrigin } from "./origin-guard.js";
import type { Route, RouteCall } from "./router.js";

const HTML = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } as const;
// A page no other site may frame (clickjacking of a decision button).
const UNFRAMED = { "content-security-policy": "frame-ancestors 'none'", "x-frame-options": "DENY" } as const;

/** A decision posted from a page of another origin: refused before anything changes. */
function refuseCrossOrigin(req: EngineRequest): void {
  if (isCrossOrigin(req)) {
    throw new ApiError("FORBIDDEN_ORIGIN", "this page's decisions are accepted only from the page itself", {
      status: 403,
    });
  }
}

/** The JSON body of an API POST: 415 without a JSON content type, 400 when malformed. */
function apiBody(req: EngineRequest): unknown {
  if (!isJsonContentType(req.header("content-type"))) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json");
  }
  return objectBody(parseJsonBody(req.body));
}

/** A parsed body that must be a JSON object: `null`, arrays, strings and numbers are `INVALID_DATA`. */
function objectBody(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw new ApiError("INVALID_DATA", `the request body must be a JSON object, not ${kind}`, {
      details: [{ path: "", message: "must be a JSON object" }],
    });
  }
  return value;
}

/** The JSON body of a control call: may be empty; when a content type is sent it must be JSON. */
function controlBody(req: EngineRequest): unknown {
  if (req.body === null || req.body.trim().length === 0) return {};
  const type = req.header("content-type");
  if (type !== undefined && !isJsonContentType(type)) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json");
  }
  return objectBody(parseJsonBody(req.body));
}

function checked<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  const result = validate(schema, input);
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  return result.data;
}

const ok = (value: unknown, status = 200): EngineResponse => json(status, value);

/**
 * A control call that takes no body: none, or an empty JSON object (the dashboard sends `{}`). Anything
 * else (`null`, `[]`, `42`, fields) is refused before the call acts, rather than ignored.
 */
function noBody(req: EngineRequest): void {
  if (req.body === null || req.body.trim() === "") return;
  let value: unknown;
  try {
    value = JSON.parse(req.body);
  } catch {
    value = undefined;
  }
  const empty =
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  if (!empty) {
    throw new ApiError("INVALID_DATA", "this control call takes no body (send none, or {})", {
      details: [{ path: "", message: "must be empty: this call takes no body" }],
    });
  }
}

/**
 * The options of a control call that moves a payin or payout, from its query (`?awaitWebhooks=true`).
 * Any other key is refused: a misspelt option must not be silently ignored.
 */
function callOptions(req: { query: string }): ControlCallOptions {
  let awaitWebhooks = false;
  for (const [key, value] of new URLSearchParams(req.query)) {
    if (key !== "awaitWebhooks") throw invalidData(key, "is not an option of this call (awaitWebhooks is)");
    if (value !== "true" && value !== "false") throw invalidData(key, "must be true or false");
    awaitWebhooks = value === "true";
  }
  return { awaitWebhooks };
}

/** The `accountId` of a control call's query, or undefined (absent or empty: every account). */
function accountQuery(req: { query: string }): string | undefined {
  return new URLSearchParams(req.query).get("accountId") || undefined;
}

/**
 * The query of a control list (`?accountId=&limit=&cursor=`): a numeric `limit` read as a number, an
 * empty `accountId` as none (the dashboard's "all accounts"), unknown keys refused by {@link ListQuery}.
 */
function listQuery(query: string): ControlListOptions {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    if (key in raw)
      throw new ApiError("INVALID_DATA", `${key} is given twice`, {
        details: [{ path: key, message: "is given twice" }],
      });
    if (key === "accountId" && value === "") continue;
    raw[key] = key === "limit" && /^\d+$/.test(value) ? Number(value) : value;
  }
  return checked(ListQuery, raw);
}

/** The merchant API of the spec: POST/GET /payin, POST/GET /payout. */
function apiRoutes(state: MockState): Route[] {
  const auth = (req: EngineRequest) => state.authenticator.authenticate(req.header("authorization"));
  return [
    {
      method: "POST",
      path: "/payin",
      kind: "api",
      handle: ({ req }) => {
        const account = auth(req);
        const trace = parseTraceparent(req.header("traceparent"));
        state.creatingTrace = trace;
        let created: ReturnType<typeof createPayin>;
        try {
          created = createPayin(state, account, apiBody(req), req.base);
        } finally {
          state.creatingTrace = null;
        }
        const { payin, pixCode } = created;
        if (trace) state.traces.set(payin, trace);
        const sdkUrl = `${req.base}/_mock/acquirer/three-ds.js`;
        return jsonText(201, payinCreatedBody(payin, sdkUrl, pixCode));
      },
    },
    {
      method: "GET",
      path: "/payin/:id",
      kind: "api",
      handle: ({ req, params }) => json(200, payinJson(payinOf(state, auth(req), params.id!))),
    },
    {
      method: "POST",
      path: "/payout",
      kind: "api",
      handle: ({ req }) => {
        const account = auth(req);
        const trace = parseTraceparent(req.header("traceparent"));
        state.creatingTrace = trace;
        let payout: ReturnType<typeof createPayout>;
        try {
          payout = createPayout(state, account, apiBody(req));
        } finally {
          state.creatingTrace = null;
        }
        if (trace) state.traces.set(payout, trace);
        return json(201, payoutCreatedJson(payout));
      },
    },
    {
      method: "GET",
      path: "/payout",
      kind: "api",
      handle: ({ req }) => json(200, listPayouts(auth(req), readListQuery(req.query))),
    },
  ];
}

/**
 * The control API (docs/decisions.md ("The mock server: control API")), each route one call of
 * {@link ControlOperations} and each saying whom it concerns ({@link ControlAccess}), which a shared
 * sandbox authorizes.
 */
function controlRoutes(state: MockState, ops: ControlOperations): Route[] {
  const route = (
    method: string,
    path: string,
    access: (call: RouteCall) => ControlAccess,
    handle: Route["handle"],
  ): Route => ({ method, path, kind: "control", access, handle });
  // A call that takes no body refuses one before it acts.
  const bodiless = (
    method: string,
    path: string,
    access: (call: RouteCall) => ControlAccess,
    handle: Route["handle"],
  ): Route =>
    route(method, path, access, (call) => {
      noBody(call.req);
      return handle(call);
    });
  const open = (): ControlAccess => "open";
  const global = (): ControlAccess => "global";
  const caller = (): ControlAccess => "caller";
  const account = ({ params }: RouteCall): ControlAccess => ({
    accountId: ownerOf.account(state, params.id!),
    resource: `account ${params.id}`,
  });
  const payin = ({ params }: RouteCall): ControlAccess => ({
    accountId: ownerOf.payin(state, params.id!),
    resource: `payin ${params.id}`,
  });
  const payout = ({ params }: RouteCall): ControlAccess => ({
    accountId: ownerOf.payout(state, params.id!),
    resource: `payout ${params.id}`,
  });
  const delivery = ({ params }: RouteCall): ControlAccess => ({
    accountId: ownerOf.delivery(state, params.id!),
    resource: `webhook delivery ${params.id}`,
  });
  // `?accountId=` narrows a list (or the faults) to one account; without it the call is everyone's.
  const queried = ({ req }: RouteCall): ControlAccess => {
    const accountId = accountQuery(req);
    return accountId === undefined
      ? "global"
      : { accountId: ownerOf.account(state, accountId), resource: `account ${accountId}` };
  };
  // A fault or a PIX key whose body names `accountId` concerns that account; without it, everyone.
  const bodyAccount = ({ req }: RouteCall): ControlAccess => {
    const accountId = accountIdInBody(req.body);
    return accountId === undefined
      ? "global"
      : { accountId: ownerOf.account(state, accountId), resource: `account ${accountId}` };
  };
  return [
    route("POST", "/_mock/accounts", open, ({ req }) =>
      ok(ops.createAccount(controlBody(req) as never), 201),
    ),
    // Account keys see their own account alone (the dashboard of one team member on a shared sandbox).
    bodiless("GET", "/_mock/accounts", caller, ({ req, caller: self }) => {
      const query = listQuery(req.query);
      return ok(ops.accounts(self === undefined ? query : { ...query, accountId: self }));
    }),
    bodiless("GET", "/_mock/accounts/:id", account, ({ params }) => ok(ops.getAccount(params.id!))),
    bodiless("POST", "/_mock/accounts/:id/reset", account, ({ params }) => ok(ops.resetAccount(params.id!))),
    bodiless("GET", "/_mock/accounts/:id/clock", account, ({ params }) => ok(ops.accountClock(params.id!))),
    route("POST", "/_mock/accounts/:id/clock", account, ({ req, params }) =>
      ok(ops.setAccountClock(params.id!, controlBody(req) as never)),
    ),
    route("POST", "/_mock/accounts/:id/settings", account, ({ req, params }) =>
      ok(ops.updateAccount(params.id!, controlBody(req) as never)),
    ),
    route("POST", "/_mock/accounts/:id/webhook-secret", account, ({ req, params }) =>
      ok(ops.rotateWebhookSecret(params.id!, controlBody(req) as never)),
    ),
    bodiless("GET", "/_mock/payins", queried, ({ req }) => ok(ops.payins(listQuery(req.query)))),
    bodiless("GET", "/_mock/payouts", queried, ({ req }) => ok(ops.payouts(listQuery(req.query)))),
    // `?awaitWebhooks=true`: answered once the deliveries the call caused were attempted.
    bodiless("POST", "/_mock/payins/:id/pay", payin, async ({ req, params }) =>
      ok(await ops.payPayin(params.id!, callOptions(req))),
    ),
    route("POST", "/_mock/payins/:id/authorize", payin, async ({ req, params }) => {
      const { approve } = checked(AuthorizeBody, controlBody(req));
      return ok(await ops.authorizePayin(params.id!, approve, callOptions(req)));
    }),
    bodiless("POST", "/_mock/payins/:id/expire", payin, async ({ req, params }) =>
      ok(await ops.expirePayin(params.id!, callOptions(req))),
    ),
    route("POST", "/_mock/payins/:id/three-ds", payin, async ({ req, params }) => {
      const { outcome } = checked(ThreeDSBody, controlBody(req));
      return ok(await ops.completeThreeDS(params.id!, outcome, callOptions(req)));
    }),
    bodiless("POST", "/_mock/payouts/:id/approve", payout, async ({ req, params }) =>
      ok(await ops.approvePayout(params.id!, callOptions(req))),
    ),
    bodiless("POST", "/_mock/payouts/:id/reject", payout, async ({ req, params }) =>
      ok(await ops.rejectPayout(params.id!, callOptions(req))),
    ),
    bodiless("POST", "/_mock/payouts/:id/advance", payout, async ({ req, params }) =>
      ok(await ops.advancePayout(params.id!, callOptions(req))),
    ),
    route("POST", "/_mock/payouts/:id/fail", payout, async ({ req, params }) => {
      const { status } = checked(FailBody, controlBody(req));
      return ok(await ops.failPayout(params.id!, status, callOptions(req)));
    }),
    bodiless("POST", "/_mock/payouts/:id/refund", payout, async ({ req, params }) =>
      ok(await ops.refundPayout(params.id!, callOptions(req))),
    ),
    bodiless("GET", "/_mock/clock", global, () => ok(ops.clock())),
    route("POST", "/_mock/clock", global, ({ req }) => ok(ops.setClock(controlBody(req) as never))),
    bodiless("GET", "/_mock/webhooks", queried, ({ req }) => ok(ops.webhooks(listQuery(req.query)))),
    bodiless("POST", "/_mock/webhooks/flush", queried, async ({ req }) =>
      ok({ data: await ops.flushWebhooks(accountQuery(req)) }),
    ),
    bodiless("POST", "/_mock/webhooks/:id/redeliver", delivery, async ({ params }) =>
      ok(await ops.redeliverWebhook(params.id!)),
    ),
    bodiless("GET", "/_mock/faults", queried, ({ req }) => ok({ data: ops.faults(accountQuery(req)) })),
    route("POST", "/_mock/faults", bodyAccount, ({ req }) =>
      ok(ops.addFault(controlBody(req) as never), 201),
    ),
    bodiless("DELETE", "/_mock/faults", queried, ({ req }) => {
      ops.clearFaults(accountQuery(req));
      return ok({ data: [] });
    }),
    route("POST", "/_mock/rate-limit", global, ({ req }) => {
      ops.setRateLimit(controlBody(req) as never);
      return ok({ rateLimit: ops.rateLimit() });
    }),
    bodiless("GET", "/_mock/pix-keys", queried, ({ req }) => ok(ops.pixKeys(listQuery(req.query)))),
    route("POST", "/_mock/pix-keys", bodyAccount, ({ req }) =>
      ok(ops.registerPixKey(controlBody(req) as never), 201),
    ),
    bodiless("POST", "/_mock/reset", global, () => {
      ops.reset();
      return ok({ reset: true });
    }),
  ];
}

/** The `accountId` a control body names, if any (a body that is not JSON concerns everyone). */
function accountIdInBody(body: string | null): string | undefined {
  if (body === null) return undefined;
  try {
    const value = JSON.parse(body) as unknown;
    const accountId =
      typeof value === "object" && value !== null ? (value as { accountId?: unknown }).accountId : undefined;
    return typeof accountId === "string" ? accountId : undefined;
  } catch {
    return undefined;
  }
}

/** Customer-facing pages: boleto PDF, open finance bank page, the acquirer's 3DS script and challenge. */
let openApiText: string | undefined;

function pageRoutes(state: MockState): Route[] {
  const openFinance = (id: string) => {
    const payin = state.payins.get(id);
    if (payin?.paymentMethod !== "OPEN_FINANCE")
      throw new ApiError("NOT_FOUND", `no open finance payment ${id}`);
    return payin;
  };
  return [
    {
      // The service's OpenAPI document (docs/openapi.json), open like the pages; built on first use.
      method: "GET",
      path: "/openapi.json",
      kind: "page",
      handle: () => {
        openApiText ??= JSON.stringify(buildOpenApiDocument());
        return {
          status: 200,
          headers: { "content-type": "application/json; charset=utf-8" },
          body: openApiText,
        };
      },
    },
    {
      // The page itself is open like the other pages; its calls to the control API carry the admin
      // token (it asks for it on a 401), so the token guards every read and every decision.
      method: "GET",
      path: "/_mock/dashboard",
      kind: "page",
      handle: () => ({
        status: 200,
        headers: { ...HTML, ...UNFRAMED },
        body: renderDashboardPage(),
      }),
    },
    {
      method: "GET",
      path: "/_mock/boleto/:file",
      kind: "page",
      handle: ({ params }) => {
        const id = params.file!.replace(/\.pdf$/, "");
        const payin = state.payins.get(id);
        if (!payin || payin.boletoBarcode === null)
          throw new ApiError("NOT_FOUND", `no boleto ${params.file}`);
        const { customer } = orderOf(payin);
        const pdf = boletoPdf({
          payinId: payin.id,
          line: payin.boletoBarcode,
          amountCents: payin.amount,
          dueDate: new Date(payin.createdAt + 3 * 86_400_000).toISOString().slice(0, 10),
          payerName: customer.name,
        });
        return {
          status: 200,
          headers: {
            "content-type": "application/pdf",
            "content-disposition": `inline; filename="${payin.id}.pdf"`,
          },
          body: pdf,
        };
      },
    },
    {
      method: "GET",
      path: "/_mock/open-finance/:id",
      kind: "page",
      handle: ({ req, params }) => {
        const payin = openFinance(params.id!);
        const { customer } = orderOf(payin);
        const html = openFinancePage({
          payinId: payin.id,
          amountCents: payin.amount,
          payerName: customer.name,
          status: payin.status,
          action: `${req.base}/_mock/open-finance/${payin.id}`,
          returnUrl: returnUrlOf(new URLSearchParams(req.query).get("returnUrl")),
          token: state.pageToken(payin.id),
        });
        return { status: 200, headers: { ...HTML, ...UNFRAMED }, body: html };
      },
    },
    {
      method: "POST",
      path: "/_mock/open-finance/:id",
      kind: "page",
      handle: ({ req, params }) => {
        const payin = openFinance(params.id!);
        refuseCrossOrigin(req);
        const type = req.header("content-type") ?? "";
        const form = isJsonContentType(type)
          ? ((parseJsonBody(req.body) as {
              decision?: unknown;
              returnUrl?: unknown;
              token?: unknown;
            } | null) ?? {})
          : Object.fromEntries(new URLSearchParams(req.body ?? ""));
        // The page's own token: a post that did not come from the page the bank rendered is refused.
        const token = typeof form.token === "string" ? form.token : "";
        if (!constantTimeEqual(token, state.pageToken(payin.id))) {
          throw new ApiError(
            "INVALID_PAGE_TOKEN",
            "the decision must be posted from the bank's authorization page",
            {
              status: 403,
            },
          );
        }
        const decision = typeof form.decision === "string" ? form.decision : "";
        if (decision !== "approve" && decision !== "deny") {
          throw new ApiError("INVALID_DATA", "decision must be approve or deny", {
            details: [{ path: "decision", message: "must be one of approve, deny" }],
          });
        }
        // The page keeps the return URL in a hidden field; a direct post may give it in the query.
        const sent = form.returnUrl ?? new URLSearchParams(req.query).get("returnUrl");
        if (sent != null && typeof sent !== "string") throw invalidData("returnUrl", "must be a string");
        const returnUrl = returnUrlOf(sent ?? null);
        authorizePayin(state, payin.id, decision === "approve");
        return {
          status: 200,
          headers: { ...HTML, ...UNFRAMED },
          body: openFinanceDonePage(payin.id, payin.status, returnUrl),
        };
      },
    },
    {
      method: "GET",
      path: "/_mock/acquirer/three-ds.js",
      kind: "page",
      handle: ({ req }) => ({
        status: 200,
        headers: {
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "no-store",
          "access-control-allow-origin": "*",
          "cross-origin-resource-policy": "cross-origin",
        },
        body: threeDSScript(new URL(req.base).origin, req.base),
      }),
    },
    {
      method: "GET",
      path: "/_mock/acquirer/challenge",
      kind: "page",
      handle: ({ req }) => {
        const query = new URLSearchParams(req.query);
        const tx = query.get("tx") ?? "";
        const parentOrigin = originOf(query.get("origin"));
        if (!parentOrigin) {
          throw new ApiError("INVALID_DATA", "origin must be the http(s) origin of the checkout page", {
            details: [{ path: "origin", message: "must be an http(s) origin" }],
          });
        }
        // A challenge that is not open any more is never shown again: the page says why and tells the
        // acquirer's script, so the checkout's flow rejects instead of waiting on a dead iframe.
        const payin = state.payinsByThreeDSTransaction.get(tx);
        const closed = closedReason(payin);
        if (closed !== null) {
          return {
            status: CLOSED_STATUS[closed],
            headers: { ...HTML, "content-security-policy": `frame-ancestors ${parentOrigin}` },
            body: closedChallengePage(closed, parentOrigin),
          };
        }
        return {
          status: 200,
          headers: { ...HTML, "content-security-policy": `frame-ancestors ${parentOrigin}` },
          body: challengePage({
            transactionId: tx,
            parentOrigin,
            endpoint: `${req.base}/_mock/acquirer/challenge`,
          }),
        };
      },
    },
    {
      method: "POST",
      path: "/_mock/acquirer/challenge",
      kind: "page",
      handle: ({ req }) => {
        // Only the challenge page itself (the mock's origin, inside the checkout's iframe) decides.
        refuseCrossOrigin(req);
        const body = checked(ChallengeBody, apiBody(req));
        const payin = state.payinsByThreeDSTransaction.get(body.tx);
        if (!payin?.threeDS) {
          throw new ApiError("CHALLENGE_UNAVAILABLE", "no 3DS transaction with this id", { status: 404 });
        }
        if (body.session === null || !constantTimeEqual(body.session, payin.threeDS.session)) {
          throw new ApiError("INVALID_DATA", "the 3DS session does not match the transaction", {
            details: [{ path: "session", message: "does not match the transaction" }],
          });
        }
        // A decided challenge answers its first outcome below; one that expired first cannot be decided.
        if (payin.threeDS.outcome === null && payin.status !== "PENDING_3DS") {
          throw new ApiError("CHALLENGE_EXPIRED", `the 3DS challenge expired: the payin is ${payin.status}`, {
            status: 410,
          });
        }
        const outcome = completeThreeDS(
          state,
          payin,
          body.action === "approve" ? "AUTHENTICATED" : "REJECTED",
        );
        return json(200, { outcome, status: payin.status });
      },
    },
  ];
}

/** Longest return URL the bank page takes. */
const MAX_RETURN_URL = 2048;

/**
 * The store page the open finance bank sends the customer back to: an absolute http(s) URL without
 * credentials, at most 2048 characters; anything else (`javascript:`, `data:`, relative) is refused,
 * so the bank page's link and refresh can never run script or leave the web.
 */
export function returnUrlOf(value: string | null): string | null {
  if (value === null || value === "") return null;
  const refuse = (message: string) =>
    new ApiError("INVALID_DATA", `returnUrl ${message}`, { details: [{ path: "returnUrl", message }] });
  if (value.length > MAX_RETURN_URL) throw refuse(`must have at most ${MAX_RETURN_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refuse("must be an absolute http or https URL");
  if (url.username || url.password) throw refuse("must not carry a user name or password");
  return url.href;
}

/** The HTTP status of the page for a challenge that is not open. */
const CLOSED_STATUS: Record<ClosedChallengeReason, number> = { unknown: 404, decided: 409, expired: 410 };

/** Why a payin's 3DS challenge cannot be opened, or null while it is open. */
function closedReason(payin: PayinRecord | undefined): ClosedChallengeReason | null {
  if (!payin?.threeDS) return "unknown";
  if (payin.status === "PENDING_3DS") return null;
  return payin.threeDS.outcome === null ? "expired" : "decided";
}

// Only a plain http(s) origin may receive the challenge's messages (no path, no "null").
function originOf(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== value) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** Every route of the mock. */
export function allRoutes(state: MockState, ops: ControlOperations): Route[] {
  return [...apiRoutes(state), ...controlRoutes(state, ops), ...pageRoutes(state)];
}
