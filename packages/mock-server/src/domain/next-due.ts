// When an account next has work due, for a store that takes idle accounts out of memory: it saves
// this with the account, and reads the account back in when the time comes, so an expiry, a webhook
// retry or a payout step never waits for a request (docs/decisions/shared-sandbox-accounts-load-on-use.md).
import { ADVANCEABLE } from "./payouts.js";
import type { MockState } from "./state.js";

/**
 * The sandbox-clock time (epoch ms) at which the account's earliest work is due: its schedule's next
 * task (expiries, reserve releases, webhook retries, on its own clock), its payouts' next automatic
 * step, or now while a delivery is on its way. Null when nothing waits, or the account is not loaded.
 */
export function nextDueOf(state: MockState, accountId: string): number | null {
  const account = state.accounts.get(accountId);
  if (account === undefined) return null;
  const time = state.timeOf(accountId);
  let due = time.scheduler.nextAt() - time.offsetMs;
  if (state.autoAdvanceOf(account)) {
    for (const status of ADVANCEABLE)
      if ((account.payoutStatusCounts.get(status) ?? 0) > 0) {
        due = Math.min(due, state.clock.now() + state.advanceIntervalMs);
        break;
      }
  }
  if (state.outbox.busy(accountId)) due = Math.min(due, state.clock.now());
  return Number.isFinite(due) ? due : null;
}
