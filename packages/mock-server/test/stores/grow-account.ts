// An account's history at size, for the tests that read one cold (big-account.test.ts) and that count
// what each statement reads (statement-reads.test.ts): copies of the account's real records, written
// straight in SQL, older than them, with ids and referenceIds of their own, and the account's totals
// following them as the engine keeps them.
import type { MockServer } from "../../src/index.js";
import type { SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";

/**
 * The account's first records, through the API of `mock` (real ones, which {@link grow} copies): a PIX
 * payin paid, whose webhook delivery is made (and fails: nothing listens there), and a payout of 500.
 */
export async function firstRecords(
  mock: MockServer,
  account: { accountId: string; publicKey: string; secretKey: string },
): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${mock.url}${path}`, {
      method: "POST",
      headers: { authorization: basic(account), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const payin = (await (
    await post("/payin", pixPayin({ webhookUrl: "http://127.0.0.1:9/hook" }))
  ).json()) as { id: string };
  await post("/payout", payoutBody({ amount: 500 }));
  await mock.control.payPayin(payin.id);
  await mock.control.flushWebhooks(account.accountId);
}

const IN_FLIGHT = "'AWAITING_APPROVAL', 'APPROVED', 'PENDING', 'PROCESSING'";
const DEBITING = `${IN_FLIGHT}, 'COMPLETED'`;

/**
 * `count` copies of the account's one payin, payout and delivery (made through the API: real records),
 * older than them, with ids and referenceIds of their own.
 */
export async function grow(db: SqlDatabase, accountId: string, count: number): Promise<void> {
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
