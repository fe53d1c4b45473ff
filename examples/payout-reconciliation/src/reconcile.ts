import type { Paykit, Payout } from "@paykit/node";
import type { PayoutIntent, PayoutJournal } from "./journal.js";

/** What {@link payOutOnce} did for one intent. */
export interface PayoutOutcome {
  payout: Payout;
  /** False when the payout already existed (sent before a crash): nothing was sent twice. */
  created: boolean;
}

/**
 * Makes the payout of an intent exist exactly once. It first asks the service for a payout with the
 * intent's `referenceId` and creates one only when there is none: a payout whose request left before
 * a crash (or whose answer was lost) is found, not paid again. The service does not reject a
 * duplicate `referenceId` by itself, so this look-up is the merchant's guard.
 */
export async function payOutOnce(paykit: Paykit, intent: PayoutIntent): Promise<PayoutOutcome> {
  const existing = await paykit.payouts.findByReferenceId(intent.referenceId);
  if (existing) return { payout: existing, created: false };
  const payout = await paykit.payouts.create({
    amount: intent.amount,
    pixKey: intent.pixKey,
    pixKeyType: intent.pixKeyType,
    referenceId: intent.referenceId,
  });
  return { payout, created: true };
}

/** One line per intent settled by {@link resumePayouts}. */
export interface ResumeReport {
  referenceId: string;
  payoutId: string;
  status: string;
  created: boolean;
}

/**
 * The start-up step after a crash: settles every journal intent that has no `done` entry, one at a
 * time, and marks each done. Running it twice, or concurrently with nothing else, creates no payout
 * twice. An intent whose payout the service refused (e.g. INSUFFICIENT_FUNDS) stays unfinished and the
 * error propagates, so an operator sees it.
 *
 * @example
 * ```ts
 * const journal = new PayoutJournal("payouts.jsonl");
 * for (const line of await resumePayouts(paykit, journal)) console.log(line);
 * ```
 */
export async function resumePayouts(paykit: Paykit, journal: PayoutJournal): Promise<ResumeReport[]> {
  const report: ResumeReport[] = [];
  for (const intent of journal.unfinished()) {
    const { payout, created } = await payOutOnce(paykit, intent);
    journal.markDone(intent.referenceId, payout.id);
    report.push({ referenceId: intent.referenceId, payoutId: payout.id, status: payout.status, created });
  }
  return report;
}
