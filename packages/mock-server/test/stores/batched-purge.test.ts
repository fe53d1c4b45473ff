// Resets, removals and --max-records on the SQL stores (issue 21). A reset or a removal commits at once
// whatever the account's size (a new epoch, or removed_at: its old rows are gone for every reader),
// and the rows are deleted afterwards a batch per transaction, so no other account's save waits behind
// them. --max-records bounds the database like memory: dropped records and their deliveries are
// deleted. On PGlite and Debian's PostgreSQL (a fresh database).
import { beforeAll, describe, expect, it } from "vitest";
import type { SavedSandbox } from "../../src/domain/saved.js";
import { emptyBatch } from "../../src/stores/save-batch.js";
import type { SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { type SaveBatch, SqlStateStore } from "../../src/stores/sql/state-store.js";
import { databaseFor, TABLES, warmStore } from "../durable-harness.js";
import { apiOf, payoutBody, pixPayin, startHarness } from "../fixtures.js";

const SANDBOX: SavedSandbox = {
  clockOffsetMs: 0,
  boletoSeq: 0,
  defaultAccountId: "acct_default",
  pixKeys: [],
};

function batch(extra: Partial<SaveBatch>): SaveBatch {
  return emptyBatch(SANDBOX, extra);
}

/** An account row with `count` payins, payouts and deliveries, written straight in SQL (a big account, fast). */
async function seedAccount(db: SqlDatabase, id: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO paykit_accounts (id, public_key, settings, created_at)
     VALUES ($1, 'pk_test_' || $1, jsonb_build_object('id', $1::text), now())`,
    [id],
  );
  await db.query("INSERT INTO paykit_balances (account_id, available) VALUES ($1, 1000)", [id]);
  for (const [table, extra] of [
    ["paykit_payins", "payment_method, "],
    ["paykit_payouts", ""],
  ] as const) {
    await db.query(
      `INSERT INTO ${table} (id, account_id, reference_id, ${extra}status, amount, created_at, updated_at, record)
       SELECT $1 || '_${table}_' || i, $1, 'ref-' || i, ${extra ? "'PIX', " : ""}'APPROVED', 100, now(), now(),
              jsonb_build_object('id', $1 || '_${table}_' || i)
         FROM generate_series(1, $2::int) AS i`,
      [id, count],
    );
  }
  await db.query(
    `INSERT INTO paykit_deliveries (id, webhook_id, account_id, resource, resource_id, status, url, state, payload, created_at)
     SELECT $1 || '_wh_' || i, 'msg_' || i, $1, 'payin', 'pi_' || i, 'APPROVED', 'http://127.0.0.1:9/', 'delivered', '{}', now()
       FROM generate_series(1, $2::int) AS i`,
    [id, count],
  );
  await db.query(
    `INSERT INTO paykit_delivery_attempts (delivery_id, n, at, status_code)
     SELECT $1 || '_wh_' || i, 0, now(), 200 FROM generate_series(1, $2::int) AS i`,
    [id, count],
  );
}

async function rows(db: SqlDatabase, table: string, accountId: string): Promise<number> {
  const column = table === "paykit_accounts" ? "id" : "account_id";
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`,
    [accountId],
  );
  return rows[0]?.n ?? 0;
}

/** Runs the purge a step at a time, answering each step's count. */
async function purgeSteps(store: SqlStateStore, size: number): Promise<number[]> {
  const steps: number[] = [];
  for (;;) {
    const n = await store.purgeStep(size);
    if (n === 0) return steps;
    steps.push(n);
  }
}

describe.each(["pglite", "postgres"] as const)("batched purges on %s", (kind) => {
  beforeAll(() => warmStore(kind), 120_000);

  it("a reset hides the old rows at once, a new payout may reuse a referenceId, and the rows go a batch at a time", async () => {
    const db = await databaseFor(kind);
    await db.exec(`TRUNCATE ${TABLES.join(", ")}`);
    const store = new SqlStateStore(db);
    await seedAccount(db, "acct_big", 2_500);
    await seedAccount(db, "acct_other", 10);
    await store.write(batch({ resetAccounts: ["acct_big"] }));

    // hidden from every reader at the reset's commit, still on disk
    const loaded = await store.load();
    expect(loaded?.payins.filter((p) => p.id.startsWith("acct_big"))).toEqual([]);
    expect(loaded?.payins.filter((p) => p.id.startsWith("acct_other"))).toHaveLength(10);
    expect(await rows(db, "paykit_payouts", "acct_big")).toBe(2_500);
    // the account's next epoch may use a referenceId of the old one (its old row is not purged yet)
    await db.query(
      `INSERT INTO paykit_payouts (id, account_id, epoch, reference_id, status, amount, created_at, updated_at, record)
       VALUES ('po_new', 'acct_big', 1, 'ref-1', 'PENDING', 100, now(), now(), '{"id":"po_new"}')`,
    );

    const steps = await purgeSteps(store, 1_000);
    expect(Math.max(...steps)).toBeLessThanOrEqual(1_000);
    // 2,500 rows in each of three tables, a thousand at most per transaction, then the mark
    expect(steps.length).toBeGreaterThanOrEqual(9);
    for (const table of ["paykit_payins", "paykit_deliveries"])
      expect(await rows(db, table, "acct_big")).toBe(0);
    expect(await rows(db, "paykit_payouts", "acct_big")).toBe(1);
    const { rows: attempts } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM paykit_delivery_attempts WHERE delivery_id LIKE 'acct_big%'",
    );
    expect(attempts[0]?.n).toBe(0);
    // the account, its balance and the other account are untouched
    expect(await rows(db, "paykit_accounts", "acct_big")).toBe(1);
    expect(await rows(db, "paykit_balances", "acct_big")).toBe(1);
    expect(await rows(db, "paykit_payins", "acct_other")).toBe(10);
    expect(await purgeSteps(store, 1_000)).toEqual([]);
  }, 120_000);

  it("a removal hides the account at once and its rows go a batch at a time, the account row last", async () => {
    const db = await databaseFor(kind);
    await db.exec(`TRUNCATE ${TABLES.join(", ")}`);
    const store = new SqlStateStore(db);
    await seedAccount(db, "acct_gone", 1_500);
    await seedAccount(db, "acct_kept", 10);
    await store.write(batch({ removedAccounts: ["acct_gone"] }));
    const loaded = await store.load();
    expect(loaded?.accounts.map((a) => a.id)).toEqual(["acct_kept"]);
    expect(loaded?.deliveries.every((d) => d.accountId === "acct_kept")).toBe(true);
    // its public key is free at once
    await db.query(
      `INSERT INTO paykit_accounts (id, public_key, settings, created_at)
       VALUES ('acct_new', 'pk_test_acct_gone', '{}', now())`,
    );

    const steps = await purgeSteps(store, 500);
    expect(Math.max(...steps)).toBeLessThanOrEqual(500);
    for (const table of [
      "paykit_accounts",
      "paykit_balances",
      "paykit_payins",
      "paykit_payouts",
      "paykit_deliveries",
    ])
      expect(await rows(db, table, "acct_gone"), table).toBe(0);
    expect(await rows(db, "paykit_payins", "acct_kept")).toBe(10);
  }, 120_000);

  it("a reset of the whole sandbox keeps the default account's row, hides the rest at once and purges it in batches", async () => {
    const db = await databaseFor(kind);
    await db.exec(`TRUNCATE ${TABLES.join(", ")}`);
    const store = new SqlStateStore(db);
    await seedAccount(db, SANDBOX.defaultAccountId, 1_200);
    await seedAccount(db, "acct_team", 1_200);
    await store.write(batch({ everything: true }));
    const loaded = await store.load();
    expect(loaded?.accounts.map((a) => a.id)).toEqual([SANDBOX.defaultAccountId]);
    expect([loaded?.payins.length, loaded?.payouts.length, loaded?.deliveries.length]).toEqual([0, 0, 0]);

    const steps = await purgeSteps(store, 1_000);
    expect(Math.max(...steps)).toBeLessThanOrEqual(1_000);
    for (const table of ["paykit_payins", "paykit_payouts", "paykit_deliveries"]) {
      expect(await rows(db, table, SANDBOX.defaultAccountId), table).toBe(0);
      expect(await rows(db, table, "acct_team"), table).toBe(0);
    }
    expect(await rows(db, "paykit_accounts", "acct_team")).toBe(0);
    expect(await rows(db, "paykit_accounts", SANDBOX.defaultAccountId)).toBe(1);
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
