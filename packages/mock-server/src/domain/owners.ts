import type { MockState } from "./state.js";

/**
 * Which account owns a resource the control API names by id: the question a shared sandbox asks
 * before it lets one account's keys act on it. `null` when the resource does not exist.
 */
export const ownerOf = {
  account(state: MockState, id: string): string | null {
    return state.accounts.has(id) ? id : null;
  },
  payin(state: MockState, id: string): string | null {
    return state.payins.get(id)?.accountId ?? null;
  },
  payout(state: MockState, id: string): string | null {
    for (const account of state.accounts.values()) if (account.payoutsById.has(id)) return account.id;
    return null;
  },
  delivery(state: MockState, id: string): string | null {
    return state.outbox.accountOf(id);
  },
};
