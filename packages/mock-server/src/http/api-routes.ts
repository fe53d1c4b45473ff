// The merchant API of the spec: POST/GET /payin, POST/GET /payout.
import { createPayin, payinOf } from "../domain/payins.js";
import { createPayout, listPayouts, readListQuery } from "../domain/payouts.js";
import { payinCreatedJson, payinJson, payoutCreatedJson } from "../domain/records.js";
import type { MockState } from "../domain/state.js";
import { parseTraceparent } from "../domain/trace-context.js";
import { apiBody } from "./bodies.js";
import { textInBody } from "./control-access.js";
import { type EngineRequest, json } from "./messages.js";
import type { Route } from "./router.js";

/** The merchant API of the spec: POST/GET /payin, POST/GET /payout. */
export function apiRoutes(state: MockState): Route[] {
  const auth = (req: EngineRequest) => state.authenticator.authenticate(req.header("authorization"));
  return [
    {
      method: "POST",
      path: "/payin",
      kind: "api",
      handle: ({ req }) => {
        const account = auth(req);
        const trace = parseTraceparent(req.header("traceparent"));
        const { payin, pixCode } = createPayin(state, account, apiBody(req), req.base, trace);
        const sdkUrl = `${req.base}/_mock/acquirer/three-ds.js`;
        return json(201, payinCreatedJson(payin, sdkUrl, pixCode));
      },
    },
    {
      method: "GET",
      path: "/payin/:id",
      kind: "api",
      needs: ({ params }) => ({ payinIds: [params.id!] }),
      handle: ({ req, params }) => json(200, payinJson(payinOf(state, auth(req), params.id!))),
    },
    {
      method: "POST",
      path: "/payout",
      kind: "api",
      // a payout's referenceId is unique per account (and a repeat of one is answered from it)
      needs: ({ req }) => {
        const referenceId = textInBody(req.body, "referenceId");
        return referenceId === undefined ? {} : { payoutReferenceIds: [referenceId] };
      },
      handle: ({ req }) => {
        const account = auth(req);
        const trace = parseTraceparent(req.header("traceparent"));
        return json(201, payoutCreatedJson(createPayout(state, account, apiBody(req), trace)));
      },
    },
    {
      method: "GET",
      path: "/payout",
      kind: "api",
      // a list with its total reads every payout; one referenceId reads that payout
      needs: ({ req }) => {
        const referenceId = new URLSearchParams(req.query).get("referenceId");
        return referenceId === null ? { whole: true } : { payoutReferenceIds: [referenceId] };
      },
      handle: ({ req }) => json(200, listPayouts(auth(req), readListQuery(req.query))),
    },
  ];
}
