// The customer's side of an open finance payin: the bank's authorization page and the decision it posts.

import { settledPayin } from "./due.js";
import { ApiError } from "./errors.js";
import { constantTimeEqual } from "./ids.js";
import { authorizePayin } from "./payins.js";
import type { PayinRecord } from "./records.js";
import type { Turn } from "./turn.js";

/** An open finance payin as its bank page shows it, with the token the page's form carries. */
export interface BankAuthorization {
  payin: PayinRecord;
  /** The page's own token for this payin (see {@link decideAtBank}). */
  token: string;
}

/** What the bank's page posts, each field as sent: the page's token and the customer's decision. */
export interface BankDecisionPost {
  token: unknown;
  decision: unknown;
}

/** The bank page of an open finance payin; 404 NOT_FOUND for any id that is not one. */
export async function bankAuthorization(turn: Turn, id: string): Promise<BankAuthorization> {
  const payin = await openFinancePayin(turn, id);
  return { payin, token: payin.pageToken ?? "" };
}

/**
 * The customer's decision at the bank: "approve" makes the payin APPROVED, "deny" REFUSED. Taken only
 * from the page the bank rendered for this payin, whose token another site cannot read (403
 * INVALID_PAGE_TOKEN otherwise: docs/decisions/mock-server.md); any other decision is 400
 * INVALID_DATA. Nothing changes on a refusal.
 */
export async function decideAtBank(turn: Turn, id: string, post: BankDecisionPost): Promise<PayinRecord> {
  const payin = await openFinancePayin(turn, id);
  const token = typeof post.token === "string" ? post.token : "";
  if (payin.pageToken === null || !constantTimeEqual(token, payin.pageToken)) {
    throw new ApiError(
      "INVALID_PAGE_TOKEN",
      "the decision must be posted from the bank's authorization page",
      {
        status: 403,
      },
    );
  }
  if (post.decision !== "approve" && post.decision !== "deny") {
    throw new ApiError("INVALID_DATA", "decision must be approve or deny", {
      details: [{ path: "decision", message: "must be one of approve, deny" }],
    });
  }
  return authorizePayin(turn, payin.id, post.decision === "approve");
}

async function openFinancePayin(turn: Turn, id: string): Promise<PayinRecord> {
  const payin = await settledPayin(turn, id);
  if (payin?.paymentMethod !== "OPEN_FINANCE")
    throw new ApiError("NOT_FOUND", `no open finance payment ${id}`);
  return payin;
}
