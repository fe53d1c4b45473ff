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
import { retain } from "./payins.js";
import { lookupPixKey } from "./pix-directory.js";
import { type PayoutRecord, payoutJson, recordStatus } from "./records.js";
import type { TraceContext } from "./trace-context.js";
import type { Turn } from "./turn.js";

/** The mock acquirer's ISPB in the end-to-end ids of its payouts (fictitious). */
export const MOCK_ACQUIRER_ISPB = "99999004";

/** The payout statuses an automatic step moves on. */
export const ADVANCEABLE: ReadonlySet<string> = new Set(["PENDING", "APPROVED", "PROCESSING"]);

/**
 * Creates a payout from a POST /payout body for `caller`'s account. Checks run in this order: shape,
 * fee, directory, duplicate referenceId, time-of-day limit, balance, acquirer availability, synchronous
 * bank rejection. What needs no lock is read first; then the account is locked and read again, and the
 * balance is checked and debited under that lock, so concurrent payouts can never overdraw
 * (docs/decisions/balance.md); a `referenceId` another request took meanwhile is refused by the store
 * at the commit, as the same INVALID_DATA. `trace` is the creating request's trace context (null without
 * a valid `traceparent`): every webhook of the payout carries it.
 */
export async function createPayout(
  turn: Turn,
  caller: Account,
  body: unknown,
  trace: TraceContext | null,
  /** Locks the account, reads it again and runs its due work (domain/due.ts `settledAccount`). */
  settle: (accountId: string) => Promise<Account>,
): Promise<PayoutRecord> {
  const result = validate(compiled(PayoutCreateParams), body);
  if (!result.success) throw new ApiError(result.code, result.message, { details: result.details });
  const params = result.data;
  const fee = caller.fees.payoutFlatCents;
  if (params.amount <= fee)
    throw invalidData("amount", `must be greater than the payout fee of ${fee} cents`);
  const holder = await lookupPixKey(
    params.pixKeyType,
    params.pixKey,
    turn.pixDirectoryOf(caller),
    (type, key) => turn.tx.pixKey(type, key, caller.id),
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
  const existing = await turn.tx.payoutByReference(caller.id, params.referenceId);
  if (existing) throw invalidData("referenceId", `is already used by payout ${existing.id} of this account`);
  // from here on the account's totals count: locked, read again, its due work run first
  const account = await settle(caller.id);
  const now = turn.now(account);
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
  const payout: PayoutRecord = {
    id: turn.ids.next(now, PAYOUT_ID_PREFIX),
    accountId: account.id,
    externalId: null,
    status: initial,
    amount: params.amount,
    pixKey: params.pixKey,
    pixKeyType: params.pixKeyType,
    referenceId: params.referenceId,
    beneficiaryName: params.beneficiaryName ?? holder.name,
    beneficiaryDocument: params.beneficiaryDocument ?? holder.document,
    feeAmount: null,
    netAmount: null,
    failureCode: rejectNow ? "PROVIDER_REJECTED" : null,
    webhookUrl: params.webhookUrl ?? null,
    createdAt: now,
    transitions: null,
    trace,
  };
  turn.tx.insertPayout(payout);
  account.payoutCount += 1;
  account.bookPayoutStatus(payout, null, initial);
  turn.tx.updateAccount(account);
  await retain(turn, account);
  if (rejectNow) {
    // the payout exists, FAILED, and its amount is back: the refusal keeps what was written
    throw new ApiError(
      "PROVIDER_REJECTED",
      `the banking system rejected payout ${payout.id}; its amount was returned to the balance`,
      { keep: true },
    );
  }
  scheduleAdvance(turn, account, payout);
  return payout;
}

/** Moves a payout on its own, one step per advance interval of real time, while its account's payouts do. */
export function scheduleAdvance(turn: Turn, account: Account, payout: PayoutRecord): void {
  if (!turn.autoAdvanceOf(account) || !ADVANCEABLE.has(payout.status)) return;
  turn.tx.schedule({
    kind: "payout.advance",
    accountId: account.id,
    resourceId: payout.id,
    at: turn.realNow() + turn.rules.advanceIntervalMs,
    clock: "real",
  });
}

/** A payout's automatic step (its due work): one step, then the next one scheduled. */
export function advanceOnTime(turn: Turn, account: Account, payout: PayoutRecord): void {
  if (!turn.autoAdvanceOf(account) || !ADVANCEABLE.has(payout.status)) return;
  advanceStep(turn, account, payout);
  scheduleAdvance(turn, account, payout);
}

/** Moves a payout along the contract's table, books the money and queues the webhook. */
function transitionPayout(turn: Turn, account: Account, payout: PayoutRecord, to: KnownPayoutStatus): void {
  if (!canPayoutTransition(payout.status, to)) {
    throw new ApiError("INVALID_DATA", `payout ${payout.id} is ${payout.status} and cannot become ${to}`, {
      details: [{ path: "status", message: `is ${payout.status}` }],
    });
  }
  const from = payout.status;
  const now = turn.now(account);
  if (to === "PROCESSING") {
    payout.externalId = endToEndId(MOCK_ACQUIRER_ISPB, now);
    payout.feeAmount = account.fees.payoutFlatCents;
    payout.netAmount = payout.amount - payout.feeAmount;
  }
  if (to === "FAILED" || to === "REFUSED") payout.failureCode = "PROVIDER_REJECTED";
  recordStatus(payout, to, now);
  account.bookPayoutStatus(payout, from, to);
  if (!ADVANCEABLE.has(to)) turn.tx.unschedule("payout.advance", payout.id);
  turn.tx.updatePayout(payout);
  turn.tx.updateAccount(account);
  turn.notify(account, payout, to, "payout");
}

/** One processing step: PENDING/APPROVED → PROCESSING → COMPLETED (or the magic keys' FAILED/REFUSED). */
function advanceStep(turn: Turn, account: Account, payout: PayoutRecord): void {
  if (payout.status === "PENDING" || payout.status === "APPROVED") {
    transitionPayout(turn, account, payout, "PROCESSING");
  } else if (payout.status === "PROCESSING") {
    const key = payout.pixKey.toLowerCase();
    const to =
      key === MAGIC_PIX_KEYS.reject ? "FAILED" : key === MAGIC_PIX_KEYS.refuse ? "REFUSED" : "COMPLETED";
    transitionPayout(turn, account, payout, to);
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

/** A payout of any account by id, with its account locked, or 404 NOT_FOUND. */
export async function lockedPayout(
  turn: Turn,
  id: string,
): Promise<{ account: Account; payout: PayoutRecord }> {
  const found = await turn.tx.payout(id);
  if (found === null) throw new ApiError("NOT_FOUND", `payout ${id} does not exist`);
  const account = await turn.account(found.accountId);
  // read again under the account's lock: a request that held it may have moved the payout
  const payout = await turn.tx.payout(id);
  if (payout === null) throw new ApiError("NOT_FOUND", `payout ${id} does not exist`);
  return { account, payout };
}

/** The control API's payout operations (docs/decisions/mock-control-api.md). */
export const payoutControl = {
  /** The dashboard approves a payout: AWAITING_APPROVAL → APPROVED. */
  async approve(turn: Turn, id: string): Promise<PayoutRecord> {
    const { account, payout } = await lockedPayout(turn, id);
    transitionPayout(turn, account, payout, "APPROVED");
    scheduleAdvance(turn, account, payout);
    return payout;
  },
  /** The dashboard rejects a payout: AWAITING_APPROVAL → CANCELED, amount returned. */
  async reject(turn: Turn, id: string): Promise<PayoutRecord> {
    const { account, payout } = await lockedPayout(turn, id);
    transitionPayout(turn, account, payout, "CANCELED");
    return payout;
  },
  /** One processing step. */
  async advance(turn: Turn, id: string): Promise<PayoutRecord> {
    const { account, payout } = await lockedPayout(turn, id);
    advanceStep(turn, account, payout);
    return payout;
  },
  /** The bank rejects a PROCESSING payout: FAILED (default) or REFUSED, amount returned. */
  async fail(turn: Turn, id: string, status: "FAILED" | "REFUSED" = "FAILED"): Promise<PayoutRecord> {
    const { account, payout } = await lockedPayout(turn, id);
    transitionPayout(turn, account, payout, status);
    return payout;
  },
  /** The receiving bank returns a COMPLETED transfer: REFUNDED, amount returned. */
  async refund(turn: Turn, id: string): Promise<PayoutRecord> {
    const { account, payout } = await lockedPayout(turn, id);
    transitionPayout(turn, account, payout, "REFUNDED");
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

/**
 * GET /payout: newest first (createdAt desc, then id desc), one page with the total that matches
 * (docs/decisions/listing-payouts.md). The store reads the page through an index: a page costs the
 * same with 1,000 or 1,000,000 payouts.
 */
export async function listPayouts(turn: Turn, account: Account, rawQuery: unknown): Promise<PayoutList> {
  const result = validate(compiled(PayoutListQuery), rawQuery);
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  const query = result.data;
  const page = query.page ?? PAYOUT_LIST_DEFAULTS.page;
  const limit = query.limit ?? PAYOUT_LIST_DEFAULTS.limit;
  const from = query.startDate ? boundOf(query.startDate, false) : undefined;
  const to = query.endDate ? boundOf(query.endDate, true) : undefined;
  // without dates or a referenceId, the account's counts are the total: the store reads the page alone
  const counted = from === undefined && to === undefined && query.referenceId === undefined;
  const { records, total } = await turn.tx.payoutList(account.id, {
    status: query.status,
    referenceId: query.referenceId,
    from,
    to,
    skip: (page - 1) * limit,
    limit,
    total: !counted
      ? undefined
      : query.status === undefined
        ? account.payoutCount
        : (account.payoutStatusCounts[query.status] ?? 0),
  });
  return {
    data: records.map(payoutJson),
    meta: { total, page, limit, totalPages: Math.ceil(total / limit) },
  };
}
