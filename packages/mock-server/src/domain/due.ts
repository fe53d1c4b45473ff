// Work a record has due at a moment (docs/decisions/sandbox-store.md): a payin's expiry, a card
// reserve's release, a payout's automatic step. A request runs its account's due work before it reads
// anything of it, and each process's worker runs the rest as it falls due, in a transaction of its own.
import type { Account } from "./accounts.js";
import { expireOnClock, releaseReserve } from "./payins.js";
import { advanceOnTime } from "./payouts.js";
import type { DueItem } from "./repository.js";
import type { Turn } from "./turn.js";

/** Most due items one turn takes: the rest wait for the next turn, never for a long transaction. */
export const DUE_PER_TURN = 500;

/**
 * Runs an account's work due by now (its clock, and real time for payout steps), oldest first, under
 * the account's lock (the caller's). Answers how many items ran; a full batch means more may wait.
 */
export async function runDue(turn: Turn, account: Account): Promise<number> {
  const items = await turn.tx.takeDue(account.id, turn.now(account), turn.realNow(), DUE_PER_TURN);
  for (const item of items) await runItem(turn, account, item);
  return items.length;
}

async function runItem(turn: Turn, account: Account, item: DueItem): Promise<void> {
  switch (item.kind) {
    case "payin.expire": {
      const payin = await turn.tx.payin(item.resourceId);
      if (payin !== null) expireOnClock(turn, account, payin);
      return;
    }
    case "payin.release": {
      const payin = await turn.tx.payin(item.resourceId);
      if (payin !== null) releaseReserve(turn, account, payin);
      return;
    }
    case "payout.advance": {
      const payout = await turn.tx.payout(item.resourceId);
      if (payout !== null) advanceOnTime(turn, account, payout);
      return;
    }
  }
}

/** An account locked, read again, with its due work run: what a change of its totals starts from. */
export async function settledAccount(turn: Turn, accountId: string): Promise<Account> {
  const account = await turn.account(accountId);
  await runDue(turn, account);
  return account;
}

/** A payin by id once its account's due work ran (an expiry a moved clock brought); null when none. */
export async function settledPayin(turn: Turn, id: string) {
  const found = await turn.tx.payin(id);
  if (found === null) return null;
  const account = await turn.tx.account(found.accountId, { lock: true });
  if (account !== null) await runDue(turn, account);
  return turn.tx.payin(id);
}

/** A 3DS challenge's payin once its account's due work ran; null when there is none. */
export async function settledChallenge(turn: Turn, transactionId: string) {
  const found = await turn.tx.payinByThreeDS(transactionId);
  return found === null ? null : settledPayin(turn, found.id);
}
