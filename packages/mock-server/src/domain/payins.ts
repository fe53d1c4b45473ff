import {
  BoletoError,
  buildBoletoLine,
  canPayinTransition,
  cardBrand,
  cardLast4,
  compiled,
  type KnownPayinStatus,
  PAYIN_ID_PREFIX,
  PayinCreateParams,
  payinFee,
  percentOf,
  validate,
} from "@paykit/contract";
import type { Account } from "./accounts.js";

import { ApiError, invalidData } from "./errors.js";
import { randomString, randomToken } from "./ids.js";
import { cardOutcome, RISK_EMAIL_SUFFIX } from "./magic.js";
import { type PayinRecord, recordStatus, storedJson } from "./records.js";
import type { TraceContext } from "./trace-context.js";
import type { Turn } from "./turn.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A PIX charge expires 1 h after creation (docs/decisions/payin-statuses.md). */
export const PIX_EXPIRY_MS = HOUR_MS;
/** A boleto is due, and expires, 3 days after creation. */
export const BOLETO_EXPIRY_MS = 3 * DAY_MS;
/**
 * A card payin left in PENDING_3DS expires 15 minutes after creation
 * (docs/decisions/three-ds-challenge-expiry.md): longer than the browser's default `challengeTimeoutMs`
 * of 10 minutes.
 */
export const THREE_DS_EXPIRY_MS = 15 * 60_000;
/** The issuing bank of the mock's boletos (Banco do Brasil's COMPE code). */
const BOLETO_BANK = "001";

/** A new payin and, for PIX, the BR Code built for its 201 answer (the record keeps none: see pix-charge.ts). */
export interface CreatedPayin {
  payin: PayinRecord;
  pixCode: string | null;
}

/**
 * Creates a payin from a POST /payin body for `account`; throws the service's error for every refusal,
 * before anything is written. A payin changes no total of its account unless a card approves it at
 * once: only then (or with a retention limit to keep) is the account locked, so an account's payins
 * are created side by side, on any process (docs/decisions/sandbox-store.md). `trace` is the creating
 * request's trace context (null without a valid `traceparent`): every webhook of the payin carries it.
 */
export async function createPayin(
  turn: Turn,
  account: Account,
  body: unknown,
  base: string,
  trace: TraceContext | null,
): Promise<CreatedPayin> {
  if (isObject(body) && body.paymentMethod === "CREDIT_CARD" && !account.creditCardEnabled) {
    throw new ApiError(
      "CREDIT_CARD_NOT_ENABLED",
      "card payins need the additional KYC approval; ask support to enable them",
    );
  }
  const result = validate(compiled(PayinCreateParams), body);
  if (!result.success) throw new ApiError(result.code, result.message, { details: result.details });
  const params = result.data;
  // The per-method maxima keep totals exact for ~900,000 maximal payins; past that, refuse rather than
  // let a balance lose cents to floating point.
  if (account.openingBalance + account.approvedNet + params.amount > Number.MAX_SAFE_INTEGER) {
    throw invalidData(
      "amount",
      "would take the account's total past 2^53 - 1 cents, beyond exact arithmetic",
    );
  }
  if (params.customer.email.toLowerCase().endsWith(RISK_EMAIL_SUFFIX)) {
    throw new ApiError("REJECTED_BY_RISK", "the payment was denied by the antifraud check");
  }
  let status: KnownPayinStatus = "PENDING";
  if (params.paymentMethod === "CREDIT_CARD") {
    const number = "number" in params.card ? params.card.number : undefined;
    const outcome = cardOutcome(number);
    if (outcome.kind === "error") throw new ApiError(outcome.code, outcome.message);
    status = outcome.status;
  }

  const now = turn.now(account);
  const id = turn.ids.next(now, PAYIN_ID_PREFIX);
  const payin: PayinRecord = {
    id,
    accountId: account.id,
    externalId: randomString(24, undefined, "acq_"),
    referenceId: params.referenceId,
    paymentMethod: params.paymentMethod,
    amount: params.amount,
    orderJson: storedJson({ customer: params.customer, items: params.items }),
    webhookUrl: params.webhookUrl ?? null,
    createdAt: now,
    status,
    netAmount: null,
    reservedAmount: null,
    reserveReleaseAt: null,
    threeDS: null,
    card: null,
    pixCharge: null,
    boletoBarcode: null,
    boletoUrl: null,
    openFinanceRedirectUrl: null,
    pageToken: null,
    installments: null,
    transitions: null,
    trace,
  };
  let pixCode: string | null = null;
  switch (params.paymentMethod) {
    case "PIX":
      pixCode = account.pixCharge.code(params.amount, payin.id);
      payin.pixCharge = account.pixCharge;
      expireAt(turn, payin, now + PIX_EXPIRY_MS);
      break;
    case "BOLETO":
      payin.boletoBarcode = boletoLineOf(
        params.amount,
        now + BOLETO_EXPIRY_MS,
        await turn.tx.nextBoletoNumber(),
      );
      payin.boletoUrl = `${base}/_mock/boleto/${payin.id}.pdf`;
      expireAt(turn, payin, now + BOLETO_EXPIRY_MS);
      break;
    case "OPEN_FINANCE":
      payin.openFinanceRedirectUrl = `${base}/_mock/open-finance/${payin.id}`;
      payin.pageToken = randomToken();
      break;
    case "CREDIT_CARD": {
      const card = params.card;
      payin.installments = card.installments;
      // Only brand and last four digits are kept (docs/decisions/card.md).
      payin.card = "number" in card ? { brand: cardBrand(card.number), last4: cardLast4(card.number) } : null;
      if (status === "PENDING_3DS") {
        payin.threeDS = { transactionId: `3ds_${randomString(24)}`, session: randomToken(), outcome: null };
        expireAt(turn, payin, now + THREE_DS_EXPIRY_MS);
      }
      break;
    }
  }
  const bounded = turn.rules.maxRecords !== Number.POSITIVE_INFINITY;
  if (status !== "APPROVED" && !bounded) {
    turn.tx.insertPayin(payin);
    return { payin, pixCode };
  }
  // a card approved at once credits its account (and a retention limit counts its records): locked
  const locked = await turn.account(account.id);
  if (status === "APPROVED") credit(turn, locked, payin);
  turn.tx.insertPayin(payin);
  if (status === "APPROVED") turn.tx.updateAccount(locked);
  if (bounded) await retain(turn, locked);
  return { payin, pixCode };
}

/** Schedules a payin's expiry on its account's clock. */
function expireAt(turn: Turn, payin: PayinRecord, at: number): void {
  turn.tx.schedule({
    kind: "payin.expire",
    accountId: payin.accountId,
    resourceId: payin.id,
    at,
    clock: "account",
  });
}

/** Applies the retention limit (`maxRecords`) to an account (locked) after it gained a record. */
export async function retain(turn: Turn, account: Account): Promise<void> {
  const max = turn.rules.maxRecords;
  if (max === Number.POSITIVE_INFINITY) return;
  const dropped = await turn.tx.trimRecords(account, max);
  if (dropped.payouts.length === 0) return;
  account.payoutCount -= dropped.payouts.length;
  for (const payout of dropped.payouts)
    account.payoutStatusCounts[payout.status] = (account.payoutStatusCounts[payout.status] ?? 1) - 1;
  turn.tx.updateAccount(account);
}

function boletoLineOf(amountCents: number, dueAt: number, seq: number): string {
  // Free field: a 7-digit agreement, a 16-digit "nosso número" and the 2-digit portfolio.
  const freeField = `1234567${String(seq % 1e16).padStart(16, "0")}17`;
  try {
    return buildBoletoLine({ bankCode: BOLETO_BANK, amountCents, dueDate: new Date(dueAt), freeField });
  } catch (error) {
    if (error instanceof BoletoError)
      throw invalidData("amount", "is too large for a boleto (at most 9999999999 cents)");
    throw error;
  }
}

/** The payin by id, visible only to its own account (spec: 404 when not owned). */
export async function payinOf(turn: Turn, account: Account | null, id: string): Promise<PayinRecord> {
  const payin = await turn.tx.payin(id);
  if (!payin || (account !== null && payin.accountId !== account.id)) {
    throw new ApiError("NOT_FOUND", `payin ${id} does not exist`);
  }
  return payin;
}

/**
 * Books an approved payin: net of its fee, with the card reserve held for its days
 * (docs/decisions/fees-and-reserve.md); the caller writes the account.
 */
function credit(turn: Turn, account: Account, payin: PayinRecord): void {
  const net = payin.amount - payinFee(payin.paymentMethod, payin.amount, account.fees);
  const reserve = payin.paymentMethod === "CREDIT_CARD" ? percentOf(net, account.fees.cardReserveBps) : 0;
  payin.netAmount = net;
  payin.reservedAmount = reserve;
  account.approvedNet += net;
  if (reserve > 0) {
    account.reserved += reserve;
    payin.reserveReleaseAt = turn.now(account) + account.fees.cardReserveDays * DAY_MS;
    turn.tx.schedule({
      kind: "payin.release",
      accountId: account.id,
      resourceId: payin.id,
      at: payin.reserveReleaseAt,
      clock: "account",
    });
  }
}

/** Releases a card payin's reserve (its due work on the account clock). */
export function releaseReserve(turn: Turn, account: Account, payin: PayinRecord): void {
  if (payin.reserveReleaseAt === null) return;
  account.reserved -= payin.reservedAmount ?? 0;
  payin.reserveReleaseAt = null;
  turn.tx.updatePayin(payin);
  turn.tx.updateAccount(account);
}

/**
 * Moves a payin along the contract's transition table, books the money and queues its webhook. A move
 * the table does not allow is 400 INVALID_DATA naming the current status (docs: control calls in the
 * wrong status). `account` is the payin's, locked.
 */
export function transitionPayin(
  turn: Turn,
  account: Account,
  payin: PayinRecord,
  to: KnownPayinStatus,
): void {
  if (!canPayinTransition(payin.status, to)) {
    throw new ApiError("INVALID_DATA", `payin ${payin.id} is ${payin.status} and cannot become ${to}`, {
      details: [{ path: "status", message: `is ${payin.status}` }],
    });
  }
  recordStatus(payin, to, turn.now(account));
  if (payin.status !== "PENDING" && payin.status !== "PENDING_3DS")
    turn.tx.unschedule("payin.expire", payin.id);
  if (to === "APPROVED") {
    credit(turn, account, payin);
    turn.tx.updateAccount(account);
  }
  turn.tx.updatePayin(payin);
  turn.notify(account, payin, to, "payin");
}

/** A payin's expiry as scheduled at creation: only if it is still waiting (PENDING, or PENDING_3DS). */
export function expireOnClock(turn: Turn, account: Account, payin: PayinRecord): void {
  if (payin.status === "PENDING" || payin.status === "PENDING_3DS")
    transitionPayin(turn, account, payin, "EXPIRED");
}

/** A payin of any account by id, with its account locked; 404 NOT_FOUND when there is none. */
export async function lockedPayin(turn: Turn, id: string): Promise<{ account: Account; payin: PayinRecord }> {
  const found = await turn.tx.payin(id);
  if (found === null) throw new ApiError("NOT_FOUND", `payin ${id} does not exist`);
  const account = await turn.account(found.accountId);
  // read again under the account's lock: a request that held it may have moved the payin
  const payin = await turn.tx.payin(id);
  if (payin === null) throw new ApiError("NOT_FOUND", `payin ${id} does not exist`);
  return { account, payin };
}

/** `POST /_mock/payins/{id}/pay`: the customer paid the PIX or the boleto. */
export async function payPayin(turn: Turn, id: string): Promise<PayinRecord> {
  const { account, payin } = await lockedPayin(turn, id);
  if (payin.paymentMethod !== "PIX" && payin.paymentMethod !== "BOLETO") {
    throw invalidData(
      "paymentMethod",
      `is ${payin.paymentMethod}; only PIX and BOLETO payins are paid this way`,
    );
  }
  transitionPayin(turn, account, payin, "APPROVED");
  return payin;
}

/** `POST /_mock/payins/{id}/authorize`: the customer's decision at the open finance bank. */
export async function authorizePayin(turn: Turn, id: string, approve: boolean): Promise<PayinRecord> {
  const { account, payin } = await lockedPayin(turn, id);
  if (payin.paymentMethod !== "OPEN_FINANCE") {
    throw invalidData(
      "paymentMethod",
      `is ${payin.paymentMethod}; only OPEN_FINANCE payins are authorized at the bank`,
    );
  }
  transitionPayin(turn, account, payin, approve ? "APPROVED" : "REFUSED");
  return payin;
}

/** `POST /_mock/payins/{id}/expire`: a pending payin expires now. */
export async function expirePayin(turn: Turn, id: string): Promise<PayinRecord> {
  const { account, payin } = await lockedPayin(turn, id);
  transitionPayin(turn, account, payin, "EXPIRED");
  return payin;
}

/** The outcome the customer chose in a post-order 3DS challenge. */
export type ThreeDSOutcome = "AUTHENTICATED" | "REJECTED";

/**
 * Completes a 3DS challenge: AUTHENTICATED approves the payin, REJECTED refuses it. A challenge
 * completed twice changes nothing the second time and answers the first outcome.
 */
export function completeThreeDS(
  turn: Turn,
  account: Account,
  payin: PayinRecord,
  outcome: ThreeDSOutcome,
): ThreeDSOutcome {
  const challenge = payin.threeDS;
  if (!challenge) throw invalidData("status", `is ${payin.status}; the payin has no 3DS challenge`);
  if (challenge.outcome !== null) return challenge.outcome;
  transitionPayin(turn, account, payin, outcome === "AUTHENTICATED" ? "APPROVED" : "REFUSED");
  // written with the transition: a store writes a record as it is when the turn commits
  challenge.outcome = outcome;
  return outcome;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
