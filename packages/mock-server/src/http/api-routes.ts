// The merchant API of the spec: POST/GET /payin, POST/GET /payout.
import { createPayin, payinOf } from "../domain/payins.js";
import { createPayout, listPayouts, readListQuery } from "../domain/payouts.js";
import { payinCreatedBody, payinJson, payoutCreatedJson } from "../domain/records.js";
import type { MockState } from "../domain/state.js";
import { parseTraceparent } from "../domain/trace-context.js";
import { apiBody } from "./bodies.js";
import { type EngineRequest, json, jsonText } from "./messages.js";
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
