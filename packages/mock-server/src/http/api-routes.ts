// The merchant API of the spec: POST/GET /payin, POST/GET /payout. Each request is one turn: its
// account's due work first (an expiry a moved clock brought), then the operation.
import { type Account, authenticate } from "../domain/accounts.js";
import { settledAccount } from "../domain/due.js";
import { createPayin, payinOf } from "../domain/payins.js";
import { createPayout, listPayouts, readListQuery } from "../domain/payouts.js";
import { payinCreatedJson, payinJson, payoutCreatedJson } from "../domain/records.js";
import { parseTraceparent } from "../domain/trace-context.js";
import type { Turn } from "../domain/turn.js";
import { apiBody } from "./bodies.js";
import { type EngineRequest, json } from "./messages.js";
import type { Route } from "./router.js";

/**
 * The account whose keys a merchant request carries, as the request's first read: not locked (its
 * totals are read again under the lock by what changes them), unless work is due on it, which the
 * request then runs first, under the lock (an expiry a moved clock brought).
 */
export async function merchantAccount(turn: Turn, req: EngineRequest): Promise<Account> {
  let due = false;
  let account = await authenticate(req.header("authorization"), async (pk) => {
    const found = await turn.tx.caller(pk);
    due = found?.due ?? false;
    return found?.account ?? null;
  });
  if (due) account = await settledAccount(turn, account.id);
  turn.tx.touchAccount(account.id);
  return account;
}

/** The merchant API of the spec: POST/GET /payin, POST/GET /payout. */
export function apiRoutes(): Route[] {
  return [
    {
      method: "POST",
      path: "/payin",
      kind: "api",
      handle: async ({ req, turn }) => {
        const account = await merchantAccount(turn, req);
        const trace = parseTraceparent(req.header("traceparent"));
        const { payin, pixCode } = await createPayin(turn, account, apiBody(req), req.base, trace);
        const sdkUrl = `${req.base}/_mock/acquirer/three-ds.js`;
        return json(201, payinCreatedJson(payin, sdkUrl, pixCode));
      },
    },
    {
      method: "GET",
      path: "/payin/:id",
      kind: "api",
      writes: false,
      handle: async ({ req, params, turn }) => {
        const account = await merchantAccount(turn, req);
        return json(200, payinJson(await payinOf(turn, account, params.id!)));
      },
    },
    {
      method: "POST",
      path: "/payout",
      kind: "api",
      handle: async ({ req, turn }) => {
        const account = await merchantAccount(turn, req);
        const trace = parseTraceparent(req.header("traceparent"));
        const settle = (accountId: string) => settledAccount(turn, accountId);
        return json(201, payoutCreatedJson(await createPayout(turn, account, apiBody(req), trace, settle)));
      },
    },
    {
      method: "GET",
      path: "/payout",
      kind: "api",
      writes: false,
      handle: async ({ req, turn }) => {
        const account = await merchantAccount(turn, req);
        return json(200, await listPayouts(turn, account, readListQuery(req.query)));
      },
    },
  ];
}
