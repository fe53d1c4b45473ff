// An account with a long history, read cold (docs/decisions/sandbox-store.md): 100,000 payins, payouts
// and webhook deliveries, written straight in SQL, then every list read through a mock process that never
// saw the account (a new one on the same store): the merchant's GET /payout, the control lists, the
// delivery log (the dashboard and the MCP tools read these), each answering its page, with no 5xx, while
// another account's requests keep answering. Before issue 34 the account was read whole inside a locked
// transaction: 503 after 14 s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../../src/index.js";
import type { SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { databaseFor, storeOn, warmStore } from "../durable-harness.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";

/** Records of each kind the big account holds (PGlite, in WASM, seeds a fifth as many in the same time). */
const RECORDS_OF = { postgres: 100_000, pglite: 20_000 } as const;

/**
 * `count` copies of the account's one payin, payout and delivery (made through the API: real records),
 * older than them, with ids and referenceIds of their own.
 */
const IN_FLIGHT = "'AWAITING_APPROVAL', 'APPROVED', 'PENDING', 'PROCESSING'";
const DEBITING = `${IN_FLIGHT}, 'COMPLETED'`;

async function grow(db: SqlDatabase, accountId: string, count: number): Promise<void> {
  const id = (prefix: string) => `'${prefix}_00' || lpad(i::text, 24, '0')`;
  await db.query(
    `INSERT INTO paykit_payins (id, account_id, epoch, status, amount, three_ds_tx, record)
     SELECT ${id("pi")}, t.account_id, t.epoch, t.status, t.amount, NULL,
            jsonb_set(t.record, '{id}', to_jsonb(${id("pi")}))
       FROM paykit_payins t, generate_series(1, $2::int) AS i WHERE t.account_id = $1`,
    [accountId, count],
  );
  await db.query(
    `INSERT INTO paykit_payouts (id, account_id, epoch, reference_id, status, amount, created_ms, record)
     SELECT ${id("po")}, t.account_id, t.epoch, 'old-' || i, t.status, t.amount, t.created_ms - i,
            t.record || jsonb_build_object('id', ${id("po")}, 'referenceId', 'old-' || i, 'createdAt', t.created_ms - i)
       FROM paykit_payouts t, generate_series(1, $2::int) AS i WHERE t.account_id = $1`,
    [accountId, count],
  );
  await db.query(
    `INSERT INTO paykit_deliveries (id, account_id, epoch, resource_id, state, due_ms, record)
     SELECT ${id("wh")}, t.account_id, t.epoch, ${id("pi")}, 'delivered', NULL,
            t.record || jsonb_build_object('id', ${id("wh")}, 'resourceId', ${id("pi")}, 'state', 'delivered')
       FROM paykit_deliveries t, generate_series(1, $2::int) AS i WHERE t.account_id = $1`,
    [accountId, count],
  );
  // the account's totals follow its copies, as the engine keeps them (domain/accounts.ts): the payout
  // count, the count of its status, and what a payout of that status debits and holds in flight
  await db.query(
    `UPDATE paykit_accounts a SET
        payout_count = a.payout_count + $2,
        payout_status_counts = jsonb_set(a.payout_status_counts, ARRAY[t.status],
          to_jsonb(COALESCE((a.payout_status_counts->>t.status)::bigint, 0) + $2)),
        debited = a.debited + CASE WHEN t.status IN (${DEBITING}) THEN $2::bigint * t.amount ELSE 0 END,
        in_flight = a.in_flight + CASE WHEN t.status IN (${IN_FLIGHT}) THEN $2::bigint * t.amount ELSE 0 END
       FROM (SELECT status, amount FROM paykit_payouts
              WHERE account_id = $1 AND id NOT LIKE 'po\\_00%' LIMIT 1) t
      WHERE a.id = $1`,
    [accountId, count],
  );
}

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
    const post = (path: string, body: unknown) =>
      fetch(`${first.url}${path}`, {
        method: "POST",
        headers: { authorization: basic(big), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const payin = (await (
      await post("/payin", pixPayin({ webhookUrl: "http://127.0.0.1:9/hook" }))
    ).json()) as {
      id: string;
    };
    await post("/payout", payoutBody({ amount: 500 }));
    await first.control.payPayin(payin.id);
    // its delivery is made (and fails: nothing listens there)
    await first.control.flushWebhooks(big.accountId);
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
