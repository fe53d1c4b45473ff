import type { Payout, PayoutCreateParams, PayoutList, PayoutListQuery } from "@paykit/contract";
import type { RequestOptions } from "../core/config.js";
import { loadContract } from "../core/contract.js";
import { stringAttribute, traced } from "../core/telemetry.js";
import { Resource } from "./resource.js";

/** The largest page GET /payout serves; `listAll` uses it unless told otherwise. */
const MAX_LIMIT = 100;

/** Withdrawals from the account's available balance to a PIX key. */
export class Payouts extends Resource {
  /**
   * Creates a payout, debited from the available balance at once. After an ambiguous failure
   * (timeout, lost connection, 5xx without a documented code) the payout is first looked up by
   * `referenceId` and returned if it exists; it is sent again only when none exists, so one
   * referenceId never moves money twice.
   *
   * @example
   * ```ts
   * const payout = await paykit.payouts.create({
   *   amount: 5000, pixKey: "maria@example.com", pixKeyType: "EMAIL", referenceId: "withdraw-42",
   * });
   * ```
   */
  async create(params: PayoutCreateParams, options?: RequestOptions): Promise<Payout> {
    return traced(
      "paykit.payouts.create",
      { "paykit.reference_id": stringAttribute(params?.referenceId) },
      async (operation) => {
        const contract = await loadContract();
        return this.core.post("payout", {
          ...options,
          body: this.check(contract.PayoutCreateParams, params),
          schema: contract.Payout,
          retry: "create-payout",
          referenceId: params?.referenceId,
          template: "/payout",
          operation,
        });
      },
      (payout) => ({ "paykit.payout.id": stringAttribute(payout?.id) }),
    );
  }

  /** One page of payouts, newest first: `{ data, meta }` (`page` defaults to 1, `limit` to 10). */
  async list(query: PayoutListQuery = {}, options?: RequestOptions): Promise<PayoutList> {
    const attributes = { "paykit.reference_id": stringAttribute(query?.referenceId) };
    return traced("paykit.payouts.list", attributes, async (operation) => {
      const contract = await loadContract();
      return this.core.get("payout", {
        ...options,
        query: this.check(contract.PayoutListQuery, query),
        schema: contract.PayoutList,
        template: "/payout",
        operation,
      });
    });
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
  async *listAll(
    query: Omit<PayoutListQuery, "page"> & { page?: number } = {},
    options?: RequestOptions,
  ): AsyncGenerator<Payout, void, undefined> {
    let pageQuery: PayoutListQuery = { limit: MAX_LIMIT, ...query, page: query.page ?? 1 };
    for (;;) {
      const page = await this.list(pageQuery, options);
      for (const payout of page.data) yield payout;
      const current = pageQuery.page ?? 1;
      if (page.data.length === 0 || current >= page.meta.totalPages) return;
      const newest = page.data[0];
      if (pageQuery.endDate === undefined && current === (query.page ?? 1) && newest) {
        pageQuery = { ...pageQuery, endDate: newest.createdAt };
      }
      pageQuery = { ...pageQuery, page: current + 1 };
    }
  }

  /** The payout with this `referenceId` (the newest, should it be reused), or null when none exists. */
  async findByReferenceId(referenceId: string, options?: RequestOptions): Promise<Payout | null> {
    return traced(
      "paykit.payouts.findByReferenceId",
      { "paykit.reference_id": stringAttribute(referenceId) },
      async (operation) => {
        const contract = await loadContract();
        return this.core.findPayout(this.check(contract.ReferenceId, referenceId), { ...options, operation });
      },
      (payout) => ({ "paykit.payout.id": stringAttribute(payout?.id) }),
    );
  }
}
