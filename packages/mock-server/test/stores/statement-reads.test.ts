// No statement reads more than it answers or changes, whatever the account's history (issue 34;
// docs/decisions/sandbox-store.md): an account of 100,000 payins, payouts and webhook deliveries, then a
// mock process that never saw it serves the requests a team makes of it (merchant creates, retrieves and
// lists, payments and payout steps, webhook attempts and redeliveries, `listen`'s polls, a clock moved,
// every control list and the delivery log's filters), and PostgreSQL's own counts (pg_stat_statements, on a server of this test's
// own) say how many buffer pages each statement touched per call. A statement that scans the account, or
// the sandbox, touches thousands (the payins alone fill about 11,000 pages); one that reads a page
// through an index, tens to a few hundred. With --max-records, what the limit costs is bounded by the
// limit and what a request drops, not by the history. The SQL is the same on PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../../src/index.js";
import { migrate } from "../../src/stores/sql/migrations.js";
import { openPostgres, type SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { SqlStore } from "../../src/stores/sql/sql-store.js";
import { basic, boletoPayin, cardPayin, payoutBody, pixPayin } from "../fixtures.js";
import { firstRecords, grow } from "./grow-account.js";
import { type PrivatePostgres, startPrivatePostgres } from "./private-postgres.js";

const RECORDS = 100_000;

/**
 * Buffer pages a statement may touch per call: a page of 100 records and its index, with room, and ten
 * more per row it answers or changes (a row deleted touches its page and an entry in each index).
 */
const PAGES_PER_CALL = 500;
const PAGES_PER_ROW = 10;

const ADMIN = "statement-reads-admin-token";
const admin = { authorization: `Bearer ${ADMIN}` };
const options = { adminToken: ADMIN, autoAdvance: false, sharedSandbox: false };

/** The statements counted in this database that touched more pages per call than they may. */
async function statementsOver(db: SqlDatabase): Promise<string[]> {
  const { rows } = await db.query<{ query: string; calls: string; pages: string; rows: string }>(
    `SELECT query, calls, (shared_blks_hit + shared_blks_read) / calls AS pages, rows / calls AS rows
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls > 0
        AND query NOT LIKE '%pg_stat_statements%'
      ORDER BY pages DESC`,
  );
  // the requests ran here: their statements were counted
  expect(rows.length).toBeGreaterThan(10);
  console.log(
    `statement reads: ${rows.length} statements; the most pages per call: ${rows
      .slice(0, 3)
      .map((row) => `${row.pages} (${row.query.replace(/\s+/g, " ").slice(0, 60)}…)`)
      .join("; ")}`,
  );
  return rows
    .filter((row) => Number(row.pages) > PAGES_PER_CALL + PAGES_PER_ROW * Number(row.rows))
    .map(
      (row) =>
        `${row.pages} pages per call for ${row.rows} rows (${row.calls} calls): ${row.query.replace(/\s+/g, " ")}`,
    );
}

describe("each statement a request runs on PostgreSQL, against an account of 100,000 records", () => {
  let server: PrivatePostgres;
  let setup: SqlDatabase;
  let cold: MockServer;
  let big: { accountId: string; publicKey: string; secretKey: string };
  let url: string;

  /** A SQL store on the test's database, as a process of its own would open it. */
  const store = async (url: string) =>
    new SqlStore(await openPostgres(url, { max: 4 }), { kind: "shared", description: "statement reads" });

  beforeAll(async () => {
    server = await startPrivatePostgres([
      "shared_preload_libraries=pg_stat_statements",
      "pg_stat_statements.track=top",
      "pg_stat_statements.max=5000",
    ]);
    const root = await openPostgres(server.url, { max: 1 });
    await root.query("CREATE DATABASE reads");
    await root.close();
    url = server.url.replace(/\/[^/]*$/, "/reads");
    setup = await openPostgres(url, { max: 1 });
    await migrate(setup);
    await setup.query("CREATE EXTENSION pg_stat_statements");

    // the account's first records through the API (real ones, which grow() copies), one delivery made
    const first = await createMockServer({ ...options, sandboxStore: await store(url) });
    big = await first.control.createAccount({ balance: 100_000_000_000 });
    await firstRecords(first, big);
    await first.close();
    await grow(setup, big.accountId, RECORDS);
    // the statistics autovacuum would gather after such a load: the plans of a long-lived store
    await setup.query("ANALYZE");
    await setup.query("SELECT pg_stat_statements_reset()");
    cold = await createMockServer({ ...options, sandboxStore: await store(url) });
  }, 300_000);

  afterAll(async () => {
    await cold?.close();
    await setup?.close();
    await server?.close();
  });

  it("touches a bounded number of pages per call, whatever the account holds", async () => {
    const merchant = (method: string, path: string, body?: unknown) =>
      fetch(`${cold.url}${path}`, {
        method,
        headers: { authorization: basic(big), "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { id: string } }));
    const control = (path: string, method = "GET") =>
      fetch(`${cold.url}/_mock${path}`, { method, headers: admin }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { data?: Array<{ id: string }> },
      }));
    const hook = { webhookUrl: "http://127.0.0.1:9/hook" };

    // the merchant API
    const pix = await merchant("POST", "/payin", pixPayin(hook));
    expect(pix.status).toBe(201);
    expect((await merchant("POST", "/payin", boletoPayin())).status).toBe(201);
    expect((await merchant("POST", "/payin", cardPayin())).status).toBe(201);
    expect((await merchant("POST", "/payin", { ...pixPayin(), paymentMethod: "OPEN_FINANCE" })).status).toBe(
      201,
    );
    expect((await merchant("GET", `/payin/${pix.body.id}`)).status).toBe(200);
    const payout = await merchant("POST", "/payout", payoutBody({ amount: 700, ...hook }));
    expect(payout.status).toBe(201);
    for (const query of ["limit=10", "limit=10&status=PENDING", "referenceId=old-5", "limit=10&page=3"])
      expect((await merchant("GET", `/payout?${query}`)).status, query).toBe(200);

    // what the team does with it: a payment, payout steps, webhook attempts and a redelivery
    await cold.control.payPayin(pix.body.id);
    await cold.control.advancePayout(payout.body.id);
    await cold.control.advancePayout(payout.body.id);
    await cold.control.flushWebhooks(big.accountId);
    // `paykit-mock listen`'s polls take the account's deliveries, and its clock moves on
    await cold.control.listen(big.accountId, { listener: "statement-reads", waitMs: 0 });
    await cold.control.payPayin((await merchant("POST", "/payin", pixPayin(hook))).body.id);
    await cold.control.listen(big.accountId, { listener: "statement-reads", waitMs: 0 });
    await cold.control.listen(big.accountId, { listener: "statement-reads", waitMs: 0, detach: true });
    await cold.control.setAccountClock(big.accountId, { advanceMs: 60_000 });

    // every control list and the delivery log's filters (the dashboard and the MCP tools read these)
    const id = big.accountId;
    for (const path of [
      `/payins?accountId=${id}&limit=100`,
      `/payouts?accountId=${id}&limit=100`,
      `/webhooks?accountId=${id}&limit=100`,
      `/webhooks?accountId=${id}&limit=20&order=newest&state=delivered`,
      `/webhooks?accountId=${id}&resourceId=${pix.body.id}`,
      "/accounts?limit=100",
      `/accounts/${id}`,
      `/accounts/${id}/clock`,
    ])
      expect((await control(path)).status, path).toBe(200);
    const deliveries = (await control(`/webhooks?accountId=${id}&resourceId=${pix.body.id}`)).body.data ?? [];
    expect(deliveries.length).toBeGreaterThan(0);
    expect((await control(`/webhooks/${deliveries[0]!.id}/redeliver`, "POST")).status).toBe(200);
    await cold.control.flushWebhooks(big.accountId);

    expect(await statementsOver(setup)).toEqual([]);
  }, 180_000);

  it("keeps --max-records to what the limit bounds: an account far over it comes down a batch per request", async () => {
    await setup.query("SELECT pg_stat_statements_reset()");
    // a limit the account is a hundred times over
    const bounded = await createMockServer({
      ...options,
      maxRecords: 1_000,
      sandboxStore: await store(url),
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${bounded.url}/payin`, {
          method: "POST",
          headers: { authorization: basic(big), "content-type": "application/json" },
          body: JSON.stringify(pixPayin()),
        });
        expect(res.status).toBe(201);
      }
    } finally {
      await bounded.close();
    }
    expect(await statementsOver(setup)).toEqual([]);
  }, 180_000);
});
