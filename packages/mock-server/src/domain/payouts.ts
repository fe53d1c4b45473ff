import {
  canPayoutTransition,
  compiled,
  type DateTimeBounds,
  dateTimeBounds,
  type KnownPayoutStatus,
  PAYOUT_ID_PREFIX,
  PAYOUT_LIST_DEFAULTS,
  PayoutCreateParams,
  type PayoutList,
  PayoutListQuery,
  payoutLimitAt,
  validate,
} from "@paykit/contract";
import type { Account } from "./accounts.js";

import { ApiError, invalidData } from "./errors.js";
import { endToEndId } from "./ids.js";
import { MAGIC_PIX_KEYS, TEMPORARY_UNAVAILABLE_AMOUNT } from "./magic.js";
import { PayoutRecord, payoutJson, recordStatus } from "./records.js";
import { MOCK_ACQUIRER_ISPB, type MockState } from "./state.js";
import type { TraceContext } from "./trace-context.js";

/** The payout statuses an automatic step moves on. */
export const ADVANCEABLE: ReadonlySet<string> = new Set(["PENDING", "APPROVED", "PROCESSING"]);

/**
 * Creates a payout from a POST /payout body. Checks run in this order: shape, fee, directory,
 * duplicate referenceId, time-of-day limit, balance, acquirer availability, synchronous bank
 * rejection. The balance check and the debit happen in one synchronous step, so concurrent payouts
 * can never overdraw (docs/decisions/balance.md). `trace` is the creating request's trace context
 * (null without a valid `traceparent`): every webhook of the payout carries it.
 */
export function createPayout(
  state: MockState,
  account: Account,
  body: unknown,
  trace: TraceContext | null,
): PayoutRecord {
  const result = validate(compiled(PayoutCreateParams), body);
  if (!result.success) throw new ApiError(result.code, result.message, { details: result.details });
  const params = result.data;
  const fee = account.fees.payoutFlatCents;
  if (params.amount <= fee)
    throw invalidData("amount", `must be greater than the payout fee of ${fee} cents`);
  const holder = state.directory.lookup(
    params.pixKeyType,
    params.pixKey,
    state.pixDirectoryOf(account),
    account.id,
  );
  if (!holder) {
    throw new ApiError(
      "INVALID_PIX_KEY",
      `pixKey is not found in the PIX key directory as a ${params.pixKeyType} key`,
      {
        details: [{ path: "pixKey", message: "is not found in the PIX key directory" }],
      },
    );
  }
  const existing = account.payoutsByReference.get(params.referenceId);
  if (existing) throw invalidData("referenceId", `is already used by payout ${existing.id} of this account`);
  const now = state.nowOf(account.id);
  const limit = payoutLimitAt(new Date(now), account.limits);
  if (params.amount > limit) {
    throw new ApiError(
      "BEYOND_LIMITS",
      `amount exceeds the limit of ${limit} cents per payout at this time of day`,
    );
  }
  const available = account.balance().available;
  if (params.amount > available) {
    throw new ApiError(
      "INSUFFICIENT_FUNDS",
      `the available balance of ${available} cents is too low for ${params.amount} cents`,
    );
  }
  if (params.amount === TEMPORARY_UNAVAILABLE_AMOUNT) {
    throw new ApiError(
      "TEMPORARY_UNAVAILABLE",
      "the acquirer is temporarily unavailable; retry in 5 to 10 minutes",
    );
  }
  const key = params.pixKey.toLowerCase();
  const rejectNow = key === MAGIC_PIX_KEYS.rejectNow;
  const initial: KnownPayoutStatus = rejectNow
    ? "FAILED"
    : account.payoutApproval === "manual"
      ? "AWAITING_APPROVAL"
      : "PENDING";
  const payout = new PayoutRecord(
    state.ids.next(now, PAYOUT_ID_PREFIX),
    account.id,
    params.amount,
    params.pixKey,
    params.pixKeyType,
    params.referenceId,
    params.beneficiaryName ?? holder.name,
    params.beneficiaryDocument ?? holder.document,
    params.webhookUrl ?? null,
    now,
    initial,
  );
  // Recorded before anything below could send a webhook, which reads it from there.
  if (trace) state.traces.set(payout, trace);
  if (rejectNow) payout.failureCode = "PROVIDER_REJECTED";
  account.insertPayout(payout);
  account.bookPayoutStatus(payout, null, initial);
  state.changes?.payout(payout);
  state.retain(account);
  if (rejectNow) {
    throw new ApiError(
      "PROVIDER_REJECTED",
      `the banking system rejected payout ${payout.id}; its amount was returned to the balance`,
    );
  }
  scheduleAdvance(state, account, payout);
  return payout;
}

/** Moves a payout on its own, one step per advance interval, while its account's payouts do. */
export function scheduleAdvance(state: MockState, account: Account, payout: PayoutRecord): void {
  if (!state.autoAdvanceOf(account) || !ADVANCEABLE.has(payout.status)) return;
  state.afterInterval(() => {
    // the account was reset meanwhile: this payout is gone with it
    if (!state.isLive(account)) return;
    if (!state.autoAdvanceOf(account) || !ADVANCEABLE.has(payout.status)) return;
    advanceStep(state, account, payout);
    scheduleAdvance(state, account, payout);
  });
}

/** Moves a payout along the contract's table, books the money and sends the webhook. */
function transitionPayout(
  state: MockState,
  account: Account,
  payout: PayoutRecord,
  to: KnownPayoutStatus,
): void {
  if (!canPayoutTransition(payout.status, to)) {
    throw new ApiError("INVALID_DATA", `payout ${payout.id} is ${payout.status} and cannot become ${to}`, {
      details: [{ path: "status", message: `is ${payout.status}` }],
    });
  }
  const from = payout.status;
  const now = state.nowOf(account.id);
  if (to === "PROCESSING") {
    payout.externalId = endToEndId(MOCK_ACQUIRER_ISPB, now);
    payout.feeAmount = account.fees.payoutFlatCents;
    payout.netAmount = payout.amount - payout.feeAmount;
  }
  if (to === "FAILED" || to === "REFUSED") payout.failureCode = "PROVIDER_REJECTED";
  recordStatus(payout, to, now);
  account.bookPayoutStatus(payout, from, to);
  state.changes?.payout(payout);
  state.notify(payout, to);
}

/** One processing step: PENDING/APPROVED → PROCESSING → COMPLETED (or the magic keys' FAILED/REFUSED). */
function advanceStep(state: MockState, account: Account, payout: PayoutRecord): void {
  if (payout.status === "PENDING" || payout.status === "APPROVED") {
    transitionPayout(state, account, payout, "PROCESSING");
  } else if (payout.status === "PROCESSING") {
    const key = payout.pixKey.toLowerCase();
    const to =
      key === MAGIC_PIX_KEYS.reject ? "FAILED" : key === MAGIC_PIX_KEYS.refuse ? "REFUSED" : "COMPLETED";
    transitionPayout(state, account, payout, to);
  } else {
    throw new ApiError(
      "INVALID_DATA",
      `payout ${payout.id} is ${payout.status}; advance needs PENDING, APPROVED or PROCESSING`,
      {
        details: [{ path: "status", message: `is ${payout.status}` }],
      },
    );
  }
}

/** A payout of any account by id, or 404 NOT_FOUND. */
function located(state: MockState, id: string): { account: Account; payout: PayoutRecord } {
  for (const account of state.accounts.values()) {
    const payout = account.payoutsById.get(id);
    if (payout) return { account, payout };
  }
  throw new ApiError("NOT_FOUND", `payout ${id} does not exist`);
}

/** The control API's payout operations (docs/decisions/mock-control-api.md). */
export const payoutControl = {
  /** The dashboard approves a payout: AWAITING_APPROVAL → APPROVED. */
  approve(state: MockState, id: string): PayoutRecord {
    const { account, payout } = located(state, id);
    transitionPayout(state, account, payout, "APPROVED");
    scheduleAdvance(state, account, payout);
    return payout;
  },
  /** The dashboard rejects a payout: AWAITING_APPROVAL → CANCELED, amount returned. */
  reject(state: MockState, id: string): PayoutRecord {
    const { account, payout } = located(state, id);
    transitionPayout(state, account, payout, "CANCELED");
    return payout;
  },
  /** One processing step. */
  advance(state: MockState, id: string): PayoutRecord {
    const { account, payout } = located(state, id);
    advanceStep(state, account, payout);
    return payout;
  },
  /** The bank rejects a PROCESSING payout: FAILED (default) or REFUSED, amount returned. */
  fail(state: MockState, id: string, status: "FAILED" | "REFUSED" = "FAILED"): PayoutRecord {
    const { account, payout } = located(state, id);
    transitionPayout(state, account, payout, status);
    return payout;
  },
  /** The receiving bank returns a COMPLETED transfer: REFUNDED, amount returned. */
  refund(state: MockState, id: string): PayoutRecord {
    const { account, payout } = located(state, id);
    transitionPayout(state, account, payout, "REFUNDED");
    return payout;
  },
};

/** Reads GET /payout's query into the contract's shape: numbers coerced, repeated keys kept as lists. */
export function readListQuery(query: string): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    const parsed =
      (key === "page" || key === "limit") && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
    const previous = out[key];
    out[key] =
      previous === undefined ? parsed : Array.isArray(previous) ? [...previous, parsed] : [previous, parsed];
  }
  return out;
}

// The contract reads the bounds, as it checked them: a date alone covers its whole UTC day, a date-time
// without a zone is UTC, a leap second or a sub-millisecond fraction rounds toward the inside.
function boundOf(value: string, end: boolean): number {
  const bounds = dateTimeBounds(value) as DateTimeBounds; // PayoutListQuery took it: it is one
  return end ? bounds.to : bounds.from;
}

/** First index whose createdAt is at least `ms` (payouts are sorted by createdAt). */
function lowerBound(list: readonly PayoutRecord[], ms: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.createdAt < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * GET /payout: newest first (createdAt desc, then id desc). Walks the account's id-sorted array from
 * the newest end and stops once the page is full; totals come from counters or binary search, so an
 * unfiltered page costs the same with 1,000 or 100,000 payouts (docs/decisions/listing-payouts.md).
 */
export function listPayouts(account: Account, rawQuery: unknown): PayoutList {
  const result = validate(compiled(PayoutListQuery), rawQuery);
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  const query = result.data;
  const page = query.page ?? PAYOUT_LIST_DEFAULTS.page;
  const limit = query.limit ?? PAYOUT_LIST_DEFAULTS.limit;
  const skip = (page - 1) * limit;
  const list = account.payouts;
  const data: PayoutList["data"] = [];
  let total = 0;

  if (query.referenceId !== undefined) {
    const payout = account.payoutsByReference.get(query.referenceId);
    const candidates = payout ? [payout] : [];
    const start = query.startDate ? boundOf(query.startDate, false) : Number.NEGATIVE_INFINITY;
    const end = query.endDate ? boundOf(query.endDate, true) : Number.POSITIVE_INFINITY;
    const matching = candidates.filter(
      (p) =>
        (query.status === undefined || p.status === query.status) &&
        p.createdAt >= start &&
        p.createdAt <= end,
    );
    total = matching.length;
    for (const p of matching.slice(skip, skip + limit)) data.push(payoutJson(p));
  } else {
    const lo = query.startDate ? lowerBound(list, boundOf(query.startDate, false)) : 0;
    const hi = query.endDate ? lowerBound(list, boundOf(query.endDate, true) + 1) : list.length;
    const status = query.status;
    if (status === undefined) {
      total = Math.max(0, hi - lo);
      for (let i = hi - 1 - skip; i >= lo && data.length < limit; i--) data.push(payoutJson(list[i]!));
    } else {
      const whole = lo === 0 && hi === list.length;
      if (whole) total = account.payoutStatusCounts.get(status) ?? 0;
      let seen = 0;
      for (let i = hi - 1; i >= lo; i--) {
        const p = list[i]!;
        if (p.status !== status) continue;
        if (seen >= skip && data.length < limit) data.push(payoutJson(p));
        seen += 1;
        if (whole && (data.length >= limit || seen >= total)) break;
      }
      if (!whole) total = seen;
    }
  }
  return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
}
