// The merchant API of the spec: POST/GET /payin, POST/GET /payout. Each request is one turn: its
// account's due work first (an expiry a moved clock brought), then the operation.
import { type Account, authenticate } from "../domain/accounts.js";
import { runDue } from "../domain/due.js";
import { createPayin, payinOf } from "../domain/payins.js";
import { createPayout, listPayouts, readListQuery } from "../domain/payouts.js";
import { payinCreatedJson, payinJson, payoutCreatedJson } from "../domain/records.js";
import { parseTraceparent } from "../domain/trace-context.js";
import type { Turn } from "../domain/turn.js";
import { apiBody } from "./bodies.js";
import { type EngineRequest, json } from "./messages.js";
import type { Route } from "./router.js";

/**
 * The account whose keys a merchant request carries, with its due work run: locked when the request
 * changes it (or when work is due, which changes it).
 */
export async function merchantAccount(turn: Turn, req: EngineRequest, writes: boolean): Promise<Account> {
  const header = req.header("authorization");
  let account = await authenticate(header, (pk) => turn.tx.accountByPublicKey(pk, { lock: writes }));
  let locked = writes;
  if (!writes && (await turn.tx.hasDue(account.id, turn.now(account), turn.realNow()))) {
    account = (await turn.tx.account(account.id, { lock: true })) ?? account;
    locked = true;
  }
  if (locked) await runDue(turn, account);
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
        const account = await merchantAccount(turn, req, true);
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
        const account = await merchantAccount(turn, req, false);
        return json(200, payinJson(await payinOf(turn, account, params.id!)));
      },
    },
    {
      method: "POST",
      path: "/payout",
      kind: "api",
      handle: async ({ req, turn }) => {
        const account = await merchantAccount(turn, req, true);
        const trace = parseTraceparent(req.header("traceparent"));
        return json(201, payoutCreatedJson(await createPayout(turn, account, apiBody(req), trace)));
      },
    },
    {
      method: "GET",
      path: "/payout",
      kind: "api",
      writes: false,
      handle: async ({ req, turn }) => {
        const account = await merchantAccount(turn, req, false);
        return json(200, await listPayouts(turn, account, readListQuery(req.query)));
      },
    },
  ];
}
