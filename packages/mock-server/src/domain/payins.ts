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
import { PayinRecord, recordStatus, storedJson } from "./records.js";
import type { MockState } from "./state.js";
import type { TraceContext } from "./trace-context.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A PIX charge expires 1 h after creation (docs/decisions/payin-statuses.md). */
export const PIX_EXPIRY_MS = HOUR_MS;
/** A boleto is due, and expires, 3 days after creation. */
export const BOLETO_EXPIRY_MS = 3 * DAY_MS;
/**
 * A card payin left in PENDING_3DS expires 15 minutes after creation
 * (docs/decisions/three-ds-challenge-expiry.md): longer than the browser's default
 * `challengeTimeoutMs` of 10 minutes.
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
 * Creates a payin from a POST /payin body; throws the service's error for every refusal. `trace` is
 * the creating request's trace context (null without a valid `traceparent`): every webhook of the
 * payin carries it.
 */
export function createPayin(
  state: MockState,
  account: Account,
  body: unknown,
  base: string,
  trace: TraceContext | null,
): CreatedPayin {
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

  const time = state.timeOf(account.id);
  const now = time.now();
  const payin = new PayinRecord(
    state.ids.next(now, PAYIN_ID_PREFIX),
    account.id,
    randomString(24, undefined, "acq_"),
    params.referenceId,
    params.paymentMethod,
    params.amount,
    storedJson({ customer: params.customer, items: params.items }),
    params.webhookUrl ?? null,
    now,
    status,
  );
  // Recorded before anything below could send a webhook, which reads it from there.
  if (trace) state.traces.set(payin, trace);
  let pixCode: string | null = null;
  switch (params.paymentMethod) {
    case "PIX":
      pixCode = account.pixCharge.code(params.amount, payin.id);
      payin.pixCharge = account.pixCharge;
      time.scheduler.scheduleIn(time.pixExpiries, now + PIX_EXPIRY_MS, payin);
      break;
    case "BOLETO":
      payin.boletoBarcode = boletoLineOf(params.amount, now + BOLETO_EXPIRY_MS, ++state.boletoSeq);
      payin.boletoUrl = `${base}/_mock/boleto/${payin.id}.pdf`;
      time.scheduler.schedule(now + BOLETO_EXPIRY_MS, state.expireOnClock, payin);
      break;
    case "OPEN_FINANCE":
      payin.openFinanceRedirectUrl = `${base}/_mock/open-finance/${payin.id}`;
      break;
    case "CREDIT_CARD": {
      const card = params.card;
      payin.installments = card.installments;
      // Only brand and last four digits are kept (docs/decisions/card.md).
      payin.card = "number" in card ? { brand: cardBrand(card.number), last4: cardLast4(card.number) } : null;
      if (status === "PENDING_3DS") {
        payin.threeDS = { transactionId: `3ds_${randomString(24)}`, session: randomToken(), outcome: null };
        state.payinsByThreeDSTransaction.set(payin.threeDS.transactionId, payin);
        time.scheduler.schedule(now + THREE_DS_EXPIRY_MS, state.expireOnClock, payin);
      }
      if (status === "APPROVED") credit(state, account, payin);
      break;
    }
  }
  state.payins.add(payin);
  account.insertPayin(payin);
  state.changes?.payin(payin);
  state.retain(account);
  return { payin, pixCode };
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
export function payinOf(state: MockState, account: Account | null, id: string): PayinRecord {
  const payin = state.payins.get(id);
  if (!payin || (account !== null && payin.accountId !== account.id)) {
    throw new ApiError("NOT_FOUND", `payin ${id} does not exist`);
  }
  return payin;
}

/**
 * Books an approved payin: net of its fee, with the card reserve held for its days
 * (docs/decisions/fees-and-reserve.md).
 */
function credit(state: MockState, account: Account, payin: PayinRecord): void {
  const net = payin.amount - payinFee(payin.paymentMethod, payin.amount, account.fees);
  const reserve = payin.paymentMethod === "CREDIT_CARD" ? percentOf(net, account.fees.cardReserveBps) : 0;
  payin.netAmount = net;
  payin.reservedAmount = reserve;
  account.approvedNet += net;
  if (reserve > 0) {
    account.reserved += reserve;
    const time = state.timeOf(account.id);
    payin.reserveReleaseAt = time.now() + account.fees.cardReserveDays * DAY_MS;
    scheduleReserveRelease(state, account, payin);
  }
}

/**
 * Releases a card payin's reserve once its account clock reaches `reserveReleaseAt` (at approval, or
 * again when a durable store reads the payin back). A reset drops the account's schedule with it.
 */
export function scheduleReserveRelease(state: MockState, account: Account, payin: PayinRecord): void {
  const releaseAt = payin.reserveReleaseAt;
  if (releaseAt === null) return;
  const generation = state.generation;
  state.timeOf(account.id).scheduler.schedule(releaseAt, () => {
    if (generation !== state.generation || payin.reserveReleaseAt === null) return;
    account.reserved -= payin.reservedAmount ?? 0;
    payin.reserveReleaseAt = null;
    state.changes?.payin(payin);
  });
}

/**
 * Moves a payin along the contract's transition table and sends its webhook. A move the table does
 * not allow is 400 INVALID_DATA naming the current status (docs: control calls in the wrong status).
 */
export function transitionPayin(state: MockState, payin: PayinRecord, to: KnownPayinStatus): void {
  if (!canPayinTransition(payin.status, to)) {
    throw new ApiError("INVALID_DATA", `payin ${payin.id} is ${payin.status} and cannot become ${to}`, {
      details: [{ path: "status", message: `is ${payin.status}` }],
    });
  }
  recordStatus(payin, to, state.nowOf(payin.accountId));
  state.changes?.payin(payin);
  if (to === "APPROVED") credit(state, state.account(payin.accountId), payin);
  state.notify(payin, to);
}

/**
 * A payin's expiry as scheduled at creation: runs only if it is still waiting (PENDING, or PENDING_3DS for a
 * card) in this state.
 */
export function expireOnClock(state: MockState, payin: PayinRecord): void {
  if ((payin.status === "PENDING" || payin.status === "PENDING_3DS") && state.payins.get(payin.id) === payin)
    transitionPayin(state, payin, "EXPIRED");
}

/** `POST /_mock/payins/{id}/pay`: the customer paid the PIX or the boleto. */
export function payPayin(state: MockState, id: string): PayinRecord {
  const payin = payinOf(state, null, id);
  if (payin.paymentMethod !== "PIX" && payin.paymentMethod !== "BOLETO") {
    throw invalidData(
      "paymentMethod",
      `is ${payin.paymentMethod}; only PIX and BOLETO payins are paid this way`,
    );
  }
  transitionPayin(state, payin, "APPROVED");
  return payin;
}

/** `POST /_mock/payins/{id}/authorize`: the customer's decision at the open finance bank. */
export function authorizePayin(state: MockState, id: string, approve: boolean): PayinRecord {
  const payin = payinOf(state, null, id);
  if (payin.paymentMethod !== "OPEN_FINANCE") {
    throw invalidData(
      "paymentMethod",
      `is ${payin.paymentMethod}; only OPEN_FINANCE payins are authorized at the bank`,
    );
  }
  transitionPayin(state, payin, approve ? "APPROVED" : "REFUSED");
  return payin;
}

/** `POST /_mock/payins/{id}/expire`: a pending payin expires now. */
export function expirePayin(state: MockState, id: string): PayinRecord {
  const payin = payinOf(state, null, id);
  transitionPayin(state, payin, "EXPIRED");
  return payin;
}

/** The outcome the customer chose in a post-order 3DS challenge. */
export type ThreeDSOutcome = "AUTHENTICATED" | "REJECTED";

/**
 * Completes a 3DS challenge: AUTHENTICATED approves the payin, REJECTED refuses it. A challenge
 * completed twice changes nothing the second time and answers the first outcome.
 */
export function completeThreeDS(
  state: MockState,
  payin: PayinRecord,
  outcome: ThreeDSOutcome,
): ThreeDSOutcome {
  const challenge = payin.threeDS;
  if (!challenge) throw invalidData("status", `is ${payin.status}; the payin has no 3DS challenge`);
  if (challenge.outcome !== null) return challenge.outcome;
  transitionPayin(state, payin, outcome === "AUTHENTICATED" ? "APPROVED" : "REFUSED");
  challenge.outcome = outcome;
  return outcome;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
