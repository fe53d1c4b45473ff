// Puts a durable store's saved state back into an engine, and arms again the work that was due:
// expiries, reserve releases, automatic payout steps, webhook retries. Nothing scheduled is saved as
// such: each is derived from the records, as the code that scheduled it first would. A store reads
// the sandbox and its default account at start, and every other account when a request needs it
// (see stores/account-loader.ts): each goes in with `adoptSavedAccount`.
import type { Account } from "./accounts.js";
import { BOLETO_EXPIRY_MS, PIX_EXPIRY_MS, scheduleReserveRelease, THREE_DS_EXPIRY_MS } from "./payins.js";
import { scheduleAdvance } from "./payouts.js";
import {
  accountFrom,
  applySavedSettings,
  payinFrom,
  payoutFrom,
  type SavedAccountRecords,
  type SavedSandbox,
  type SavedStart,
  type SavedState,
} from "./saved.js";
import type { MockState } from "./state.js";

/**
 * Replaces the state's content by the sandbox a store holds and its default account; the other
 * accounts stay in the store until used. The default account is the saved one unless the engine was
 * given fixed keys (`--default-keys`) that no saved account holds: that account is then opened, once,
 * and becomes the default.
 */
export function restoreStart(state: MockState, saved: SavedStart): void {
  const fixed = state.defaultAccountParams;
  restoreSandbox(state, saved.sandbox);
  const loaded = saved.defaultAccount === null ? null : adoptSavedAccount(state, saved.defaultAccount);
  const usable = loaded !== null && (!state.defaultKeysFixed || loaded.publicKey === fixed.publicKey);
  chooseDefault(state, usable ? loaded : state.createAccount(fixed));
}

/** Replaces the state's content by a whole saved state (every account read at once). */
export function restoreState(state: MockState, saved: SavedState): void {
  const fixed = state.defaultAccountParams;
  restoreSandbox(state, saved.sandbox);
  const byAccount = new Map<string, SavedAccountRecords>();
  for (const account of saved.accounts)
    byAccount.set(account.id, { account, payins: [], payouts: [], deliveries: [] });
  for (const p of saved.payins) byAccount.get(p.accountId)?.payins.push(p);
  for (const p of saved.payouts) byAccount.get(p.accountId)?.payouts.push(p);
  for (const d of saved.deliveries) byAccount.get(d.accountId)?.deliveries.push(d);
  const accounts = [...byAccount.values()].map((records) => adoptSavedAccount(state, records));
  const chosen = state.defaultKeysFixed
    ? accounts.find((a) => a.publicKey === fixed.publicKey)
    : accounts.find((a) => a.id === saved.sandbox.defaultAccountId);
  chooseDefault(state, chosen ?? state.createAccount(fixed));
}

/**
 * Takes in the sandbox as another process saved it (a shared store): its clock and PIX keys; the
 * accounts in memory stay (each has its own version). Boleto numbers only ever go up.
 */
export function adoptSavedSandbox(state: MockState, sandbox: SavedSandbox): void {
  state.clock.offsetMs = sandbox.clockOffsetMs;
  state.boletoSeq = Math.max(state.boletoSeq, sandbox.boletoSeq);
  state.directory.reset();
  for (const entry of sandbox.pixKeys) state.directory.register(entry);
}

/** Empties the state for a saved sandbox: its clock, boleto numbers and PIX keys. */
function restoreSandbox(state: MockState, sandbox: SavedSandbox): void {
  state.clearForRestore();
  state.clock.offsetMs = sandbox.clockOffsetMs;
  state.boletoSeq = sandbox.boletoSeq;
  for (const entry of sandbox.pixKeys) state.directory.register(entry);
}

function chooseDefault(state: MockState, account: Account): void {
  const fixed = state.defaultAccountParams;
  if (state.defaultWebhookSecretFixed && account.webhookSecret !== fixed.webhookSecret) {
    account.update({ webhookSecret: fixed.webhookSecret as string });
    state.changes?.account(account.id);
  }
  state.useDefaultAccount(account);
  state.changes?.sandbox();
}

/**
 * Takes one saved account with its records into the state and arms their work: what was due while
 * nobody held it in memory runs now.
 */
export function adoptSavedAccount(state: MockState, saved: SavedAccountRecords): Account {
  const account = accountFrom(saved.account);
  const time = state.adoptAccount(account, saved.account.clockOffsetMs);
  adoptSavedRecords(state, account, saved);
  time.scheduler.arm();
  return account;
}

/**
 * Brings an account in memory up to the store by what another process wrote since its copy was read
 * (a shared store): its settings and balance totals, its clock, the payins it made or moved on, and
 * the payouts and deliveries it made. A payin's work checks its status when it runs (an expiry, a
 * reserve release), so the copy's payin takes the saved fields in place. Answers false, changing
 * nothing, when that cannot be done in place: the account's keys changed, or a payout or delivery
 * the copy holds was written again (a payout's steps and a delivery's attempts are scheduled work
 * of the copy's own): the copy is then read again whole.
 */
export function adoptAccountChanges(
  state: MockState,
  account: Account,
  changes: { account: SavedAccountRecords["account"] } & Pick<
    SavedAccountRecords,
    "payins" | "payouts" | "deliveries"
  >,
): boolean {
  const saved = changes.account;
  if (
    saved.id !== account.id ||
    saved.publicKey !== account.publicKey ||
    saved.secretKey !== account.secretKey ||
    saved.merchantPixKey !== account.merchantPixKey
  )
    return false;
  if (changes.payouts.some((p) => account.payoutsById.has(p.id))) return false;
  if (changes.deliveries.some((d) => state.outbox.accountOf(d.id) !== null)) return false;
  applySavedSettings(account, saved);
  const time = state.timeOf(account.id);
  time.offsetMs = saved.clockOffsetMs;
  for (const s of changes.payins) {
    const held = state.payins.get(s.id);
    if (held === undefined || held.accountId !== account.id) continue;
    const released = held.reserveReleaseAt === null;
    Object.assign(held, payinFrom(s, account));
    // approved elsewhere with a reserve: its release is this copy's work from now on too
    if (released) scheduleReserveRelease(state, account, held);
  }
  adoptSavedRecords(state, account, changes);
  time.scheduler.arm();
  return true;
}

/**
 * Adds saved records to an account in memory, each one the account does not hold already (memory is
 * never older than the store), and arms their work as the code that made them would have. Answers
 * how many were added.
 */
export function adoptSavedRecords(
  state: MockState,
  account: Account,
  saved: Pick<SavedAccountRecords, "payins" | "payouts" | "deliveries">,
): number {
  const time = state.timeOf(account.id);
  let added = 0;
  for (const s of saved.payins) {
    if (state.payins.get(s.id) !== undefined) continue;
    const payin = payinFrom(s, account);
    state.payins.add(payin);
    account.insertPayin(payin);
    added += 1;
    if (payin.threeDS) state.payinsByThreeDSTransaction.set(payin.threeDS.transactionId, payin);
    if (payin.status === "PENDING" && payin.paymentMethod === "PIX")
      time.scheduler.scheduleIn(time.pixExpiries, payin.createdAt + PIX_EXPIRY_MS, payin);
    else if (payin.status === "PENDING" && payin.paymentMethod === "BOLETO")
      time.scheduler.schedule(payin.createdAt + BOLETO_EXPIRY_MS, state.expireOnClock, payin);
    else if (payin.status === "PENDING_3DS")
      time.scheduler.schedule(payin.createdAt + THREE_DS_EXPIRY_MS, state.expireOnClock, payin);
    scheduleReserveRelease(state, account, payin);
  }
  for (const s of saved.payouts) {
    if (account.payoutsById.has(s.id)) continue;
    const payout = payoutFrom(s);
    account.insertPayout(payout);
    added += 1;
    // the totals are saved; only the per-status counts of the list's `total` are rebuilt
    account.payoutStatusCounts.set(payout.status, (account.payoutStatusCounts.get(payout.status) ?? 0) + 1);
    scheduleAdvance(state, account, payout);
  }
  const deliveries = saved.deliveries.filter((d) => !state.outbox.inLog(d.id));
  state.outbox.restore(deliveries, (accountId) => state.signingSecretsOf(accountId));
  return added + deliveries.length;
}
