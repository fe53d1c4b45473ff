// Resetting or removing an account of any size (issue 21): the reset used to throw RangeError past ~150k
// deliveries in the sandbox, halfway through (the kept deliveries were spread into one `splice` call,
// an argument each). The engine state is seeded directly with 200k delivered deliveries for the big
// account and 150k for another one, as a durable store hands them back at start.
import { describe, expect, it } from "vitest";
import type { SavedDelivery } from "../src/domain/outbox.js";
import { expireOnClock } from "../src/domain/payins.js";
import { MockState } from "../src/domain/state.js";

function deliveries(accountId: string, count: number): SavedDelivery[] {
  const out: SavedDelivery[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${accountId}_${i.toString().padStart(7, "0")}`;
    out.push({
      id: `wh_${id}`,
      webhookId: `msg_${id}`,
      accountId,
      resource: "payin",
      resourceId: `pay_${id}`,
      status: "APPROVED",
      url: "http://127.0.0.1:9/hook",
      state: "delivered",
      attempts: [],
      payload: "{}",
      duplicate: false,
      trace: null,
      cycleAttempts: 1,
      retryAt: null,
      createdAt: 0,
    });
  }
  return out;
}

describe("an account of any size", () => {
  it("resets, and is removed, with 200k deliveries of its own and 150k of another account", () => {
    const state = new MockState({ autoAdvance: false }, expireOnClock);
    try {
      const big = state.createAccount({ balance: 5_000 });
      const other = state.createAccount({ balance: 7_000 });
      state.outbox.restore(
        [...deliveries(big.id, 200_000), ...deliveries(other.id, 150_000)],
        state.signingSecretsOf.bind(state),
      );
      expect(state.outbox.list(big.id)).toHaveLength(200_000);

      const fresh = state.resetAccount(big.id);
      expect(fresh.balance().available).toBe(5_000);
      expect(state.outbox.list(big.id)).toHaveLength(0);
      expect(state.outbox.list(other.id)).toHaveLength(150_000);
      expect(state.outbox.accountOf(`wh_${other.id}_0149999`)).toBe(other.id);
      expect(state.outbox.accountOf(`wh_${big.id}_0000000`)).toBeNull();

      expect(state.removeAccount(other.id)).toBe(true);
      expect(state.outbox.list()).toHaveLength(0);
      expect(state.accounts.has(other.id)).toBe(false);
      expect(state.accounts.has(big.id)).toBe(true);
      // the default account is never removed
      expect(state.removeAccount(state.defaultAccount.id)).toBe(false);
    } finally {
      state.close();
    }
  }, 120_000);
});
