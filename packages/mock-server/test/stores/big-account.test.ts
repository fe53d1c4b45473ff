// An account with a long history, read cold (docs/decisions/sandbox-store.md): 100,000 payins, payouts
// and webhook deliveries, written straight in SQL, then every list read through a mock process that never
// saw the account (a new one on the same store): the merchant's GET /payout, the control lists, the
// delivery log (the dashboard and the MCP tools read these), each answering its page, with no 5xx, while
// another account's requests keep answering. Before issue 34 the account was read whole inside a locked
// transaction: 503 after 14 s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../../src/index.js";
import { databaseFor, storeOn, warmStore } from "../durable-harness.js";
import { basic, pixPayin } from "../fixtures.js";
import { firstRecords, grow } from "./grow-account.js";

/** Records of each kind the big account holds (PGlite, in WASM, seeds a fifth as many in the same time). */
const RECORDS_OF = { postgres: 100_000, pglite: 20_000 } as const;

describe.each(["postgres", "pglite"] as const)("an account of many records on %s, read cold", (kind) => {
  let first: MockServer;
  let cold: MockServer;
  let big: { accountId: string; publicKey: string; secretKey: string };
  let other: { accountId: string; publicKey: string; secretKey: string };
  const ADMIN = "big-account-admin-token";
  const admin = { authorization: `Bearer ${ADMIN}` };

  beforeAll(async () => {
    await warmStore(kind);
    const options = { adminToken: ADMIN, autoAdvance: false, sharedSandbox: false };
    // one process makes the accounts and their first records through the API
    const store = await storeOn(kind);
    first = await createMockServer({ ...options, sandboxStore: store });
    big = await first.control.createAccount({ balance: 100_000_000_000 });
    other = await first.control.createAccount({ balance: 1_000_000 });
    await firstRecords(first, big);
    await first.close();
    await grow(await databaseFor(kind), big.accountId, RECORDS_OF[kind]);
    // a process that never saw the account
    cold = await createMockServer({
      ...options,
      sandboxStore: await storeOn(kind, undefined, { keep: true }),
    });
  }, 240_000);

  afterAll(async () => {
    await cold?.close();
  });

  it("answers the first page of every list, with no 5xx, while another account's requests answer", async () => {
    const merchant = { authorization: basic(big) };
    const lists: Array<[string, Record<string, string>]> = [
      ["/payout?limit=10", merchant],
      ["/payout?limit=10&status=PENDING", merchant],
      ["/payout?limit=10&page=3", merchant],
      [`/_mock/payins?accountId=${big.accountId}&limit=100`, admin],
      [`/_mock/payouts?accountId=${big.accountId}&limit=100`, admin],
      [`/_mock/webhooks?accountId=${big.accountId}&limit=100`, admin],
      [`/_mock/webhooks?accountId=${big.accountId}&limit=20&order=newest&state=delivered`, admin],
      [`/_mock/accounts/${big.accountId}`, admin],
    ];
    // another account's payins, all the while
    let stop = false;
    const others: number[] = [];
    const load = (async () => {
      while (!stop) {
        const res = await fetch(`${cold.url}/payin`, {
          method: "POST",
          headers: { authorization: basic(other), "content-type": "application/json" },
          body: JSON.stringify(pixPayin()),
        });
        others.push(res.status);
        await res.arrayBuffer();
      }
    })();
    try {
      for (const [path, headers] of lists) {
        const res = await fetch(`${cold.url}${path}`, { headers });
        const body = (await res.json()) as { data?: unknown[]; meta?: { total: number }; message?: string };
        expect(res.status, `${path}: ${body.message}`).toBe(200);
        if (path.startsWith("/payout?limit=10&page")) expect(body.data).toHaveLength(10);
        else if (path === "/payout?limit=10" || path === "/payout?limit=10&status=PENDING")
          expect(body.meta?.total, path).toBe(RECORDS_OF[kind] + 1);
        else if (path === `/_mock/accounts/${big.accountId}`)
          // every payout of 500 cents is PENDING: debited, and in flight
          expect((body as unknown as { balance: { pending: number } }).balance.pending).toBe(
            (RECORDS_OF[kind] + 1) * 500,
          );
        else if (body.data !== undefined) expect(body.data.length).toBeGreaterThan(0);
      }
    } finally {
      stop = true;
      await load;
    }
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((status) => status !== 201)).toEqual([]);
  }, 120_000);
});
