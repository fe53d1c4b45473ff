import type { ControlCallOptions, ControlListOptions, ControlOperations } from "../domain/control.js";
import { AuthorizeBody, FailBody, ListQuery, ThreeDSBody } from "../domain/control-params.js";
import { ApiError, invalidData } from "../domain/errors.js";
import { ownerOf } from "../domain/owners.js";
import type { MockState } from "../domain/state.js";
import { checked, controlBody, noBody, ok } from "./bodies.js";
import type { ControlAccess } from "./control-access.js";
import type { Route, RouteCall } from "./router.js";

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

/**
 * The control API (docs/decisions.md ("The mock server: control API")), each route one call of
 * {@link ControlOperations} and each saying whom it concerns ({@link ControlAccess}), which a shared
 * sandbox authorizes.
 */
export function controlRoutes(state: MockState, ops: ControlOperations): Route[] {
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
