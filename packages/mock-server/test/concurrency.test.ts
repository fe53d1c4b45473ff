import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../src/index.js";
import { basic, payoutBody } from "./fixtures.js";

describe("concurrent payouts over HTTP (docs/decisions/balance.md)", () => {
  let mock: MockServer;
  beforeEach(async () => {
    mock = await createMockServer({ autoAdvance: false });
    await mock.control.setClock({ now: "2030-03-12T17:00:00.000Z" });
  });
  afterEach(() => mock.close());

  it("never overdraws: of 60 simultaneous payouts of 1000 cents on 25000 cents, exactly 25 pass", async () => {
    const keys = await mock.control.createAccount({ balance: 25_000 });
    const results = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${mock.url}/payout`, {
          method: "POST",
          headers: { authorization: basic(keys), "content-type": "application/json" },
          body: JSON.stringify(payoutBody({ amount: 1_000 })),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } })),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(25);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.code === "INSUFFICIENT_FUNDS")).toBe(
      true,
    );
    expect((await mock.control.getAccount(keys.accountId)).balance).toEqual({
      available: 0,
      reserved: 0,
      pending: 25_000,
    });
  });
});
