import type { ControlCallOptions } from "../domain/control.js";
import { AuthorizeBody, FailBody, ThreeDSBody } from "../domain/control-params.js";
import type { ThreeDSOutcome } from "../domain/payins.js";
import { controlCall } from "./call.js";
import { AwaitQuery, awaiting } from "./requests.js";

/** The calls that move a payin or a payout to its next status. */
export const STEP_CALLS = {
  /** The customer pays a PIX or BOLETO payin: PENDING → APPROVED, with its webhook. */
  payPayin: controlCall({
    method: "POST",
    path: "/payins/:id/pay",
    scope: "payin",
    summary: "The customer pays a PIX or BOLETO payin",
    body: null,
    query: AwaitQuery,
    request: (payinId: string, options?: ControlCallOptions) => ({ id: payinId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.payPayin(id, query),
  }),
  /** The customer's open finance decision: APPROVED or REFUSED. */
  authorizePayin: controlCall({
    method: "POST",
    path: "/payins/:id/authorize",
    scope: "payin",
    summary: "The customer's open finance decision",
    body: AuthorizeBody,
    query: AwaitQuery,
    request: (payinId: string, approve: boolean, options?: ControlCallOptions) => ({
      id: payinId,
      body: { approve },
      query: awaiting(options),
    }),
    run: (ops, { id, body, query }) => ops.authorizePayin(id, body.approve, query),
  }),
  /** A pending payin expires now. */
  expirePayin: controlCall({
    method: "POST",
    path: "/payins/:id/expire",
    scope: "payin",
    summary: "A pending payin expires now",
    body: null,
    query: AwaitQuery,
    request: (payinId: string, options?: ControlCallOptions) => ({ id: payinId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.expirePayin(id, query),
  }),
  /** Completes a card payin's 3DS challenge without a browser (tests of the server side). */
  completeThreeDS: controlCall({
    method: "POST",
    path: "/payins/:id/three-ds",
    scope: "payin",
    summary: "Complete a card payin's 3DS challenge without a browser",
    body: ThreeDSBody,
    query: AwaitQuery,
    request: (payinId: string, outcome: ThreeDSOutcome, options?: ControlCallOptions) => ({
      id: payinId,
      body: { outcome },
      query: awaiting(options),
    }),
    run: (ops, { id, body, query }) => ops.completeThreeDS(id, body.outcome, query),
  }),
  /** The dashboard approves a payout awaiting approval. */
  approvePayout: controlCall({
    method: "POST",
    path: "/payouts/:id/approve",
    scope: "payout",
    summary: "Approve a payout awaiting approval",
    body: null,
    query: AwaitQuery,
    request: (payoutId: string, options?: ControlCallOptions) => ({ id: payoutId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.approvePayout(id, query),
  }),
  /** The dashboard rejects a payout awaiting approval: CANCELED, amount returned. */
  rejectPayout: controlCall({
    method: "POST",
    path: "/payouts/:id/reject",
    scope: "payout",
    summary: "Reject a payout awaiting approval: CANCELED, amount returned",
    body: null,
    query: AwaitQuery,
    request: (payoutId: string, options?: ControlCallOptions) => ({ id: payoutId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.rejectPayout(id, query),
  }),
  /** One processing step: PENDING/APPROVED → PROCESSING → COMPLETED (or the magic keys' outcome). */
  advancePayout: controlCall({
    method: "POST",
    path: "/payouts/:id/advance",
    scope: "payout",
    summary: "One processing step of a payout",
    body: null,
    query: AwaitQuery,
    request: (payoutId: string, options?: ControlCallOptions) => ({ id: payoutId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.advancePayout(id, query),
  }),
  /** The bank rejects a PROCESSING payout: FAILED (default) or REFUSED, amount returned. */
  failPayout: controlCall({
    method: "POST",
    path: "/payouts/:id/fail",
    scope: "payout",
    summary: "The bank rejects a PROCESSING payout: FAILED or REFUSED, amount returned",
    body: FailBody,
    query: AwaitQuery,
    request: (payoutId: string, status?: "FAILED" | "REFUSED", options?: ControlCallOptions) => ({
      id: payoutId,
      body: status ? { status } : {},
      query: awaiting(options),
    }),
    run: (ops, { id, body, query }) => ops.failPayout(id, body.status, query),
  }),
  /** The receiving bank returns a COMPLETED payout: REFUNDED, amount returned. */
  refundPayout: controlCall({
    method: "POST",
    path: "/payouts/:id/refund",
    scope: "payout",
    summary: "The receiving bank returns a COMPLETED payout: REFUNDED",
    body: null,
    query: AwaitQuery,
    request: (payoutId: string, options?: ControlCallOptions) => ({ id: payoutId, query: awaiting(options) }),
    run: (ops, { id, query }) => ops.refundPayout(id, query),
  }),
};
