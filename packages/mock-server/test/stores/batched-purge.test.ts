// Resets, removals and --max-records on the SQL stores (docs/decisions/sandbox-store.md). A reset or a
// removal commits at once whatever the account's size (a new epoch, or removed_at: its old rows are gone
// for every reader), and the rows are deleted afterwards a batch per transaction, so no other account's
// request waits behind them; several processes purging one account at once never deadlock.
// --max-records bounds the database like memory: dropped records and their deliveries are deleted.
import { beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../src/http/engine.js";
import { migrate } from "../../src/stores/sql/migrations.js";
import { PURGE_BATCH } from "../../src/stores/sql/purge.js";
import { openPostgres, type SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { SqlStore } from "../../src/stores/sql/sql-store.js";
import { TRIM_PER_TURN } from "../../src/stores/sql/sql-tx.js";
import { databaseFor, storeOn, warmStore } from "../durable-harness.js";
import { apiOf, payoutBody, pixPayin, startHarness } from "../fixtures.js";
import { newDatabase } from "./processes.js";

/** A record of a payin as the store keeps it, for rows written straight in SQL. */
const PAYIN_RECORD = {
  accountId: "",
  externalId: "acq_seeded",
  referenceId: "seeded",
  paymentMethod: "BOLETO",
  amount: 100,
  orderJson: JSON.stringify({
    customer: { name: "Maria", email: "maria@example.com", document: "12345678909", phone: "5511987654321" },
    items: [{ title: "x", quantity: 1, unitPrice: 100 }],
  }),
  webhookUrl: null,
  createdAt: 1_700_000_000_000,
  status: "APPROVED",
  netAmount: 99,
  reservedAmount: 0,
  reserveReleaseAt: null,
  threeDS: null,
  card: null,
  pixKey: null,
  boletoBarcode: "0",
  boletoUrl: "http://mock.test/b.pdf",
  openFinanceRedirectUrl: null,
  pageToken: null,
  installments: null,
  transitions: null,
  trace: null,
};

/**
 * `count` payins, payouts, deliveries and due items of an account, written straight in SQL in its
 * current epoch (a big account, fast).
 */
async function seedRecords(db: SqlDatabase, accountId: string, count: number): Promise<void> {
  const epoch = `(SELECT epoch FROM paykit_accounts WHERE id = $1)`;
  await db.query(
    `INSERT INTO paykit_payins (id, account_id, epoch, status, amount, record)
     SELECT 'pi_' || $1 || '_' || i, $1, ${epoch}, 'APPROVED', 100,
            $3::jsonb || jsonb_build_object('id', 'pi_' || $1 || '_' || i, 'accountId', $1::text)
       FROM generate_series(1, $2::int) AS i`,
    [accountId, count, JSON.stringify(PAYIN_RECORD)],
  );
  await db.query(
    `INSERT INTO paykit_payouts (id, account_id, epoch, reference_id, status, amount, created_ms, record)
     SELECT 'po_' || $1 || '_' || i, $1, ${epoch}, 'ref-' || i, 'COMPLETED', 500, i,
            jsonb_build_object('id', 'po_' || $1 || '_' || i, 'accountId', $1::text, 'referenceId', 'ref-' || i,
              'status', 'COMPLETED', 'amount', 500, 'createdAt', i, 'transitions', null)
       FROM generate_series(1, $2::int) AS i`,
    [accountId, count],
  );
  await db.query(
    `INSERT INTO paykit_deliveries (id, account_id, epoch, resource_id, state, record)
     SELECT 'wh_' || $1 || '_' || i, $1, ${epoch}, 'pi_' || $1 || '_' || i, 'delivered', '{}'
       FROM generate_series(1, $2::int) AS i`,
    [accountId, count],
  );
  await db.query(
    `INSERT INTO paykit_due (kind, resource_id, account_id, epoch, clock, at_ms, due_ms)
     SELECT 'payin.expire', 'pi_' || $1 || '_' || i, $1, ${epoch}, 'account', 4000000000000, 4000000000000
       FROM generate_series(1, $2::int) AS i`,
    [accountId, count],
  );
}

const RECORD_TABLES = ["paykit_payins", "paykit_payouts", "paykit_deliveries", "paykit_due"];

async function rows(db: SqlDatabase, table: string, accountId: string): Promise<number> {
  const column = table === "paykit_accounts" ? "id" : "account_id";
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`,
    [accountId],
  );
  return rows[0]?.n ?? 0;
}

/** An engine on an emptied store of `kind`, with two accounts: the control calls run as over HTTP. */
async function engineOn(kind: "pglite" | "postgres") {
  // the test purges a batch at a time itself
  const store = await storeOn(kind, undefined, { purgeAfterCommit: false });
  const engine = createEngine({ autoAdvance: false, sandboxStore: store });
  await engine.ready;
  return {
    store,
    engine,
    db: await databaseFor(kind),
    close: async () => {
      engine.close();
      await store.close();
    },
  };
}

/** Purges until nothing is left, answering the number of batches. */
async function purgeAll(store: SqlStore): Promise<number> {
  let batches = 0;
  while (await store.purge()) batches += 1;
  return batches;
}

describe.each(["pglite", "postgres"] as const)("batched purges on %s", (kind) => {
  beforeAll(() => warmStore(kind), 120_000);

  it("a reset hides the old rows at once, a new payout may reuse a referenceId, and the rows go a batch at a time", async () => {
    const { store, engine, db, close } = await engineOn(kind);
    try {
      const big = await engine.control.createAccount({ balance: 100_000 });
      const other = await engine.control.createAccount({ balance: 100_000 });
      await seedRecords(db, big.accountId, 2_500);
      await seedRecords(db, other.accountId, 10);
      await engine.control.resetAccount(big.accountId);
      // hidden from every reader at the reset's commit
      expect(await engine.control.payins(big.accountId)).toEqual([]);
      expect(await engine.control.payins(other.accountId)).toHaveLength(10);
      // the account's next epoch may use a referenceId of the old one
      const res = await engine.handle(
        new Request("http://mock.test/payout", {
          method: "POST",
          headers: {
            authorization: `Basic ${btoa(`${big.publicKey}:${big.secretKey}`)}`,
            "content-type": "application/json",
          },
          body: JSON.stringify(payoutBody({ referenceId: "ref-1", amount: 500 })),
        }),
      );
      expect(res.status).toBe(201);

      const batches = await purgeAll(store);
      // 2,500 rows in each of four tables, a thousand at most per table and transaction
      expect(batches).toBeGreaterThanOrEqual(Math.ceil(2_500 / PURGE_BATCH));
      for (const table of RECORD_TABLES)
        expect(await rows(db, table, big.accountId), table).toBe(table === "paykit_payouts" ? 1 : 0);
      expect(await rows(db, "paykit_accounts", big.accountId)).toBe(1);
      expect(await rows(db, "paykit_payins", other.accountId)).toBe(10);
      expect(await store.purge()).toBe(false);
    } finally {
      await close();
    }
  }, 120_000);

  it("a reset of the whole sandbox keeps the default account's row, hides the rest at once and purges it in batches", async () => {
    const { store, engine, db, close } = await engineOn(kind);
    try {
      const team = await engine.control.createAccount({ balance: 100_000 });
      await seedRecords(db, engine.account.accountId, 1_200);
      await seedRecords(db, team.accountId, 1_200);
      await engine.control.reset();
      expect((await engine.control.accounts()).map((a) => a.accountId)).toEqual([engine.account.accountId]);
      expect(await engine.control.payins()).toEqual([]);
      await purgeAll(store);
      for (const table of RECORD_TABLES) {
        expect(await rows(db, table, engine.account.accountId), table).toBe(0);
        expect(await rows(db, table, team.accountId), table).toBe(0);
      }
      expect(await rows(db, "paykit_accounts", team.accountId)).toBe(0);
      expect(await rows(db, "paykit_accounts", engine.account.accountId)).toBe(1);
    } finally {
      await close();
    }
  }, 120_000);

  it("an account far over a lower --max-records comes down a batch per request, never in one transaction", async () => {
    const { store, engine, db, close } = await engineOn(kind);
    let bounded: ReturnType<typeof createEngine> | undefined;
    try {
      const big = await engine.control.createAccount({ balance: 100_000 });
      await seedRecords(db, big.accountId, 1_500);
      await db.query(
        "UPDATE paykit_accounts SET payout_count = $2, payout_status_counts = $3::jsonb WHERE id = $1",
        [big.accountId, 1_500, JSON.stringify({ COMPLETED: 1_500 })],
      );
      engine.close();
      // the same store, served again with a limit of 1,000 records of each kind per account
      bounded = createEngine({ autoAdvance: false, sandboxStore: store, maxRecords: 1_000 });
      await bounded.ready;
      const served = bounded;
      const post = async () =>
        (
          await served.handle(
            new Request("http://mock.test/payin", {
              method: "POST",
              headers: {
                authorization: `Basic ${btoa(`${big.publicKey}:${big.secretKey}`)}`,
                "content-type": "application/json",
              },
              body: JSON.stringify(pixPayin()),
            }),
          )
        ).status;
      const counts = async () => ({
        payins: await rows(db, "paykit_payins", big.accountId),
        payouts: await rows(db, "paykit_payouts", big.accountId),
      });
      expect(await post()).toBe(201);
      expect(await counts()).toEqual({ payins: 1_501 - TRIM_PER_TURN, payouts: 1_500 - TRIM_PER_TURN });
      // then down to the limit (each request adds a payin and drops at most TRIM_PER_TURN), and kept there
      const requests = Math.ceil(500 / (TRIM_PER_TURN - 1)) + 1;
      for (let i = 1; i < requests; i++) expect(await post()).toBe(201);
      expect(await counts()).toEqual({ payins: 1_000, payouts: 1_000 });
      // the new payins (PENDING) are kept; the dropped ones' deliveries and due items went with them
      expect(await rows(db, "paykit_deliveries", big.accountId)).toBe(1_000 - requests);
      expect(await rows(db, "paykit_due", big.accountId)).toBe(1_000);
      const { rows: counted } = await db.query<{ payout_count: number }>(
        "SELECT payout_count FROM paykit_accounts WHERE id = $1",
        [big.accountId],
      );
      expect(Number(counted[0]?.payout_count)).toBe(1_000);
    } finally {
      bounded?.close();
      await close();
    }
  }, 120_000);

  it("--max-records bounds the database: dropped payins, COMPLETED payouts and their deliveries are deleted", async () => {
    const h = await startHarness(kind, {
      autoAdvance: false,
      maxRecords: 3,
      fetch: async () => new Response(null, { status: 204 }),
    });
    try {
      const api = apiOf(h);
      const db = await databaseFor(kind);
      const accountId = h.account.accountId;
      for (let i = 0; i < 6; i++) {
        const payin = (await api.post("/payin", pixPayin({ webhookUrl: "http://127.0.0.1:9/hook" }))).body;
        await h.control.payPayin(payin.id);
      }
      for (let i = 0; i < 5; i++) {
        const payout = (await api.post("/payout", payoutBody({ webhookUrl: "http://127.0.0.1:9/hook" })))
          .body;
        await h.control.advancePayout(payout.id);
        await h.control.advancePayout(payout.id);
      }
      await h.control.flushWebhooks(accountId);
      expect(await rows(db, "paykit_payins", accountId)).toBe(3);
      expect(await rows(db, "paykit_payouts", accountId)).toBe(3);
      // every delivery left is of a record still kept
      const { rows: orphans } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM paykit_deliveries d
          WHERE NOT EXISTS (SELECT 1 FROM paykit_payins p WHERE p.id = d.resource_id)
            AND NOT EXISTS (SELECT 1 FROM paykit_payouts p WHERE p.id = d.resource_id)`,
      );
      expect(orphans[0]?.n).toBe(0);
      expect(await rows(db, "paykit_deliveries", accountId)).toBeGreaterThan(0);
      expect((await h.control.webhooks(accountId)).length).toBe(
        await rows(db, "paykit_deliveries", accountId),
      );
    } finally {
      await h.close();
    }
  }, 120_000);
});

describe("three processes purging one reset account on PostgreSQL", () => {
  it("never deadlock: every batch commits, nobody reports an error, and every hidden row goes", async () => {
    const url = await newDatabase("purge3");
    const setup = await openPostgres(url, { max: 2 });
    await migrate(setup);
    const errors: unknown[] = [];
    const stores = await Promise.all(
      [0, 1, 2].map(
        async () =>
          new SqlStore(await openPostgres(url, { max: 2 }), {
            kind: "shared",
            description: "purge",
            onError: (error) => errors.push(error),
            log: (line) => errors.push(line),
          }),
      ),
    );
    try {
      const engine = createEngine({ autoAdvance: false, sandboxStore: stores[0]! });
      await engine.ready;
      const big = await engine.control.createAccount({ balance: 100_000 });
      await seedRecords(setup, big.accountId, 6_000);
      await engine.control.resetAccount(big.accountId);
      engine.close();
      // the three purge the same account at once, each a batch at a time
      const failures: unknown[] = [];
      await Promise.all(
        stores.map(async (store) => {
          try {
            for (let i = 0; i < 200 && (await store.purge()); i++) {}
          } catch (error) {
            failures.push(error);
          }
        }),
      );
      expect(failures).toEqual([]);
      expect(errors).toEqual([]);
      for (const table of RECORD_TABLES) expect(await rows(setup, table, big.accountId), table).toBe(0);
    } finally {
      for (const store of stores) await store.close();
      await setup.close();
    }
  }, 180_000);
});
