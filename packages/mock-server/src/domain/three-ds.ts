// The customer's side of a card payin's post-order 3DS challenge: the acquirer's challenge page, open
// while the payin waits in PENDING_3DS, and the decision that page posts with the transaction's session.

import { settledChallenge } from "./due.js";
import { ApiError } from "./errors.js";
import { constantTimeEqual } from "./ids.js";
import { completeThreeDS, lockedPayin, type ThreeDSOutcome } from "./payins.js";
import type { PayinRecord } from "./records.js";
import type { Turn } from "./turn.js";

/** Why a 3DS transaction's challenge cannot be shown: unknown, already decided, or expired undecided. */
export type ClosedChallenge = "unknown" | "decided" | "expired";

/** The customer's answer on the challenge page, as the page posts it (`ChallengeBody`). */
export interface ChallengeDecision {
  /** The 3DS transaction id of the payin's 201 answer. */
  tx: string;
  /** The session the challenge was opened with; null when the page had none. */
  session: string | null;
  /** The customer's answer: approve authenticates the card, reject refuses it. */
  action: "approve" | "reject";
}

/**
 * Why the challenge of a 3DS transaction is closed, or null while the customer may still decide it: a
 * challenge that is not open is never shown again (docs/decisions/three-ds-challenge-not-open.md).
 */
export async function closedChallenge(turn: Turn, transactionId: string): Promise<ClosedChallenge | null> {
  const payin = await settledChallenge(turn, transactionId);
  if (!payin?.threeDS) return "unknown";
  if (payin.status === "PENDING_3DS") return null;
  return payin.threeDS.outcome === null ? "expired" : "decided";
}

/**
 * The customer's decision on the challenge page: "approve" authenticates the card (the payin becomes
 * APPROVED), "reject" refuses it. The transaction must exist (404 CHALLENGE_UNAVAILABLE) and the page's
 * session match it (400 INVALID_DATA); a challenge that expired undecided cannot be decided (410
 * CHALLENGE_EXPIRED), and one already decided answers its first outcome again without changing anything.
 */
export async function decideChallenge(
  turn: Turn,
  decision: ChallengeDecision,
): Promise<{ payin: PayinRecord; outcome: ThreeDSOutcome }> {
  const found = await settledChallenge(turn, decision.tx);
  const { account, payin } =
    found === null ? { account: null, payin: null } : await lockedPayin(turn, found.id);
  if (!payin?.threeDS) {
    throw new ApiError("CHALLENGE_UNAVAILABLE", "no 3DS transaction with this id", { status: 404 });
  }
  if (decision.session === null || !constantTimeEqual(decision.session, payin.threeDS.session)) {
    throw new ApiError("INVALID_DATA", "the 3DS session does not match the transaction", {
      details: [{ path: "session", message: "does not match the transaction" }],
    });
  }
  if (payin.threeDS.outcome === null && payin.status !== "PENDING_3DS") {
    throw new ApiError("CHALLENGE_EXPIRED", `the 3DS challenge expired: the payin is ${payin.status}`, {
      status: 410,
    });
  }
  const outcome = completeThreeDS(
    turn,
    account!,
    payin,
    decision.action === "approve" ? "AUTHENTICATED" : "REJECTED",
  );
  return { payin, outcome };
}
