// Puts a durable store's saved state back into an engine at start, and arms again the work that was
// due: expiries, reserve releases, automatic payout steps, webhook retries. Nothing scheduled is saved
// as such: each is derived from the records, as the code that scheduled it first would.
import type { Account } from "./accounts.js";
import { BOLETO_EXPIRY_MS, PIX_EXPIRY_MS, scheduleReserveRelease, THREE_DS_EXPIRY_MS } from "./payins.js";
import { scheduleAdvance } from "./payouts.js";
import { accountFrom, payinFrom, payoutFrom, type SavedState } from "./saved.js";
import type { MockState } from "./state.js";

/**
 * Replaces the state's content by a saved one. The default account is the saved one unless the
 * engine was given fixed keys (`--default-keys`) that no saved account holds: that account is then
 * opened, once, and becomes the default.
 */
export function restoreState(state: MockState, saved: SavedState): void {
  const fixed = state.defaultAccountParams;
  state.clearForRestore();
  state.clock.offsetMs = saved.sandbox.clockOffsetMs;
  state.boletoSeq = saved.sandbox.boletoSeq;
  for (const entry of saved.sandbox.pixKeys) state.directory.register(entry);

  const accounts = new Map<string, Account>();
  for (const s of saved.accounts) {
    const account = accountFrom(s);
    state.adoptAccount(account, s.clockOffsetMs);
    accounts.set(account.id, account);
  }
  for (const s of saved.payins) {
    const account = accounts.get(s.accountId);
    if (account === undefined) continue;
    const payin = payinFrom(s, account);
    state.payins.add(payin);
    account.insertPayin(payin);
    if (payin.threeDS) state.payinsByThreeDSTransaction.set(payin.threeDS.transactionId, payin);
    const time = state.timeOf(account.id);
    if (payin.status === "PENDING" && payin.paymentMethod === "PIX")
      time.scheduler.scheduleIn(time.pixExpiries, payin.createdAt + PIX_EXPIRY_MS, payin);
    else if (payin.status === "PENDING" && payin.paymentMethod === "BOLETO")
      time.scheduler.schedule(payin.createdAt + BOLETO_EXPIRY_MS, state.expireOnClock, payin);
    else if (payin.status === "PENDING_3DS")
      time.scheduler.schedule(payin.createdAt + THREE_DS_EXPIRY_MS, state.expireOnClock, payin);
    scheduleReserveRelease(state, account, payin);
  }
  for (const s of saved.payouts) {
    const account = accounts.get(s.accountId);
    if (account === undefined) continue;
    const payout = payoutFrom(s);
    account.insertPayout(payout);
    // the totals are saved; only the per-status counts of the list's `total` are rebuilt
    account.payoutStatusCounts.set(payout.status, (account.payoutStatusCounts.get(payout.status) ?? 0) + 1);
    scheduleAdvance(state, account, payout);
  }
  state.outbox.restore(saved.deliveries, (accountId) => state.signingSecretsOf(accountId));

  const chosen = state.defaultKeysFixed
    ? [...accounts.values()].find((a) => a.publicKey === fixed.publicKey)
    : accounts.get(saved.sandbox.defaultAccountId);
  const account = chosen ?? state.createAccount(fixed);
  if (state.defaultWebhookSecretFixed && account.webhookSecret !== fixed.webhookSecret) {
    account.update({ webhookSecret: fixed.webhookSecret as string });
    state.changes?.account(account.id);
  }
  state.useDefaultAccount(account);
  state.changes?.sandbox();
  state.armAll();
}
