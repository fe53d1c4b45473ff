import type { Payout, PayoutCreateParams, PayoutList, PayoutListQuery } from "@paykit/contract";
import type { PaykitPromise } from "../core/api-promise.js";
import type { RequestOptions } from "../core/config.js";
import type { Endpoint, Reconciler } from "../core/endpoint.js";
import { callHook } from "../core/hooks.js";
import type { Fate } from "../core/outcome.js";
import { type AnsweredPage, eachPage, eachRecord } from "../core/pagination.js";
import { stringAttribute } from "../core/telemetry.js";
import { Resource } from "./resource.js";

/** The largest page GET /payout serves; `listAll` uses it unless told otherwise. */
const MAX_LIMIT = 100;

/**
 * What a failed payout means for the merchant, by what the client knows of its fate. The service
 * keeps a payout's referenceId unique, so a lookup by it is authoritative.
 */
const PAYOUT_FATES: Partial<Record<Fate, (referenceId: string) => string>> = {
  unknown: (r) =>
    `The payout may have been created: check with payouts.findByReferenceId("${r}") before sending it again`,
  "took-effect": (r) =>
    `The payout was created but its answer was lost: payouts.findByReferenceId("${r}") returns it`,
  "lookup-failed": (r) =>
    `The payout may have been created and looking it up failed: call payouts.findByReferenceId("${r}") before sending it again`,
  absent: (r) => `No payout with referenceId "${r}" exists, so none was created: sending it again is safe`,
  "absent-but-in-flight": (r) =>
    `No payout with referenceId "${r}" was found, but a lost attempt may still be processed: check with ` +
    `payouts.findByReferenceId("${r}") later. Sending it again with the same referenceId cannot pay twice ` +
    "(the service refuses a reused referenceId)",
};

/** Whether an error body is 400 INVALID_DATA about `referenceId` (already used). */
function isReferenceConflict(body: unknown): boolean {
  const { code, details } = (body ?? {}) as { code?: unknown; details?: unknown };
  return (
    code === "INVALID_DATA" &&
    Array.isArray(details) &&
    details.some((detail: { path?: unknown } | null) => detail?.path === "referenceId")
  );
}

const FIND: Endpoint<string, Payout | null, PayoutList> = {
  name: "paykit.payouts.findByReferenceId",
  method: "GET",
  template: "/payout",
  retry: "read",
  path: () => "payout",
  query: (referenceId) => ({ referenceId, limit: 1 }),
  request: (contract) => contract.ReferenceId,
  response: (contract) => contract.PayoutList,
  result: (page, referenceId) => {
    const newest = page.data[0];
    return newest !== undefined && newest.referenceId === referenceId ? newest : null;
  },
  attributes: (referenceId) => ({ "paykit.reference_id": stringAttribute(referenceId) }),
  learned: (payout) => ({ "paykit.payout.id": stringAttribute(payout?.id) }),
};

/**
 * After an ambiguous failure of POST /payout (timeout, lost connection, 5xx without a documented
 * code), the payout is looked up by its referenceId: found, it is returned; absent, it is sent again.
 */
const BY_REFERENCE_ID: Reconciler<PayoutCreateParams, Payout> = {
  async find(params, { reason, requestId, operation, options, hooks, send }) {
    const referenceId = String(params?.referenceId);
    // Its own span, so a trace reads "timed out → looked up by referenceId → found, not sent again".
    const reconcile = operation.child("paykit.payouts.reconcile", {
      "paykit.reference_id": referenceId,
      "paykit.reconcile.reason": reason,
    });
    let found: Payout | null = null;
    try {
      found = await send(FIND, referenceId, options, reconcile);
      reconcile.set({ "paykit.reconcile.found": found !== null, "paykit.payout.id": found?.id });
      reconcile.end();
      return found;
    } catch (error) {
      reconcile.end(error);
      throw error;
    } finally {
      callHook(hooks.onPayoutLookup, { referenceId, found: found !== null, reason, requestId });
    }
  },
  // After a lost attempt, "referenceId already used" means that attempt did create the payout.
  duplicate: (status, body) => status === 400 && isReferenceConflict(body),
};

const CREATE: Endpoint<PayoutCreateParams, Payout> = {
  name: "paykit.payouts.create",
  method: "POST",
  template: "/payout",
  retry: "create-payout",
  path: () => "payout",
  request: (contract) => contract.PayoutCreateParams,
  response: (contract) => contract.Payout,
  attributes: (params) => ({ "paykit.reference_id": stringAttribute(params?.referenceId) }),
  learned: (payout) => ({ "paykit.payout.id": stringAttribute(payout?.id) }),
  explain: (fate, params) => PAYOUT_FATES[fate]?.(String(params?.referenceId)),
  reconcile: BY_REFERENCE_ID,
};

const LIST: Endpoint<PayoutListQuery, PayoutList> = {
  name: "paykit.payouts.list",
  method: "GET",
  template: "/payout",
  retry: "read",
  path: () => "payout",
  query: (query) => query,
  request: (contract) => contract.PayoutListQuery,
  response: (contract) => contract.PayoutList,
  attributes: (query) => ({ "paykit.reference_id": stringAttribute(query?.referenceId) }),
};

/** Later pages of `listAll` are pinned to the first page's newest record, so new payouts do not shift them. */
function pinToNewest(query: PayoutListQuery, newest: Payout): PayoutListQuery {
  return query.endDate === undefined ? { ...query, endDate: newest.createdAt } : query;
}

/** The query of `listAll`'s first page. */
function firstPage(query: Omit<PayoutListQuery, "page"> & { page?: number }): PayoutListQuery {
  return { limit: MAX_LIMIT, ...query, page: query.page ?? 1 };
}

/**
 * The pages `listAll` reads, each with the answer it was read from (for a call that reports the page
 * where it found a payout: `webhooks.confirm`).
 */
export function payoutPages(
  payouts: Payouts,
  query: Omit<PayoutListQuery, "page"> & { page?: number },
  options?: RequestOptions,
): AsyncGenerator<AnsweredPage<Payout>, void, undefined> {
  return eachPage((page) => payouts.list(page, options), firstPage(query), pinToNewest);
}

/** Withdrawals from the account's available balance to a PIX key. */
export class Payouts extends Resource {
  /**
   * Creates a payout, debited from the available balance at once. After an ambiguous failure
   * (timeout, lost connection, 5xx without a documented code) the payout is first looked up by
   * `referenceId` and returned if it exists; it is sent again only when none exists, so one
   * referenceId never moves money twice. When the lookup found it, `withResponse()` gives the
   * lookup's answer (a `GET /payout?referenceId=…` page), the one the payout was read from.
   *
   * @example
   * ```ts
   * const payout = await paykit.payouts.create({
   *   amount: 5000, pixKey: "maria@example.com", pixKeyType: "EMAIL", referenceId: "withdraw-42",
   * });
   * ```
   */
  create(params: PayoutCreateParams, options?: RequestOptions): PaykitPromise<Payout> {
    return this.core.send(CREATE, params, options);
  }

  /** One page of payouts, newest first: `{ data, meta }` (`page` defaults to 1, `limit` to 10). */
  list(query: PayoutListQuery = {}, options?: RequestOptions): PaykitPromise<PayoutList> {
    return this.core.send(LIST, query, options);
  }

  /**
   * Every payout matching `query`, newest first, fetched one page at a time as you iterate (only
   * one page is held in memory). Pages after the first are pinned to the first page's newest
   * `createdAt`, so payouts created meanwhile do not shift records between pages.
   *
   * @example
   * ```ts
   * for await (const payout of paykit.payouts.listAll({ status: "COMPLETED" })) reconcile(payout);
   * ```
   */
  listAll(
    query: Omit<PayoutListQuery, "page"> & { page?: number } = {},
    options?: RequestOptions,
  ): AsyncGenerator<Payout, void, undefined> {
    return eachRecord((page) => this.list(page, options), firstPage(query), pinToNewest);
  }

  /** The payout with this `referenceId` (the newest, should it be reused), or null when none exists. */
  findByReferenceId(referenceId: string, options?: RequestOptions): PaykitPromise<Payout | null> {
    return this.core.send(FIND, referenceId, options);
  }
}
