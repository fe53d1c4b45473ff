// A request whose transaction the database ended before its commit stored nothing (its session sat
// idle past `idle_in_transaction_session_timeout`, as on a process starved of CPU): the mock runs it
// again on a new transaction and answers that run, never a 503 that says it "may" be stored. And many
// requests at once on one account never sit in one transaction long enough to be ended
// (docs/decisions/shared-sandbox-every-process-serves.md).
import { afterEach, expect, it } from "vitest";
import { openPostgres, type SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody } from "../fixtures.js";
import { ADMIN, closeSharedEngines, newDatabase, sharedEngine } from "./processes.js";

afterEach(closeSharedEngines);

/**
 * A process on the store at `url` with the given idle limit, and a payout poster for an account another
 * process opened: this one reads it from the store, with its active records alone (a new payout's
 * referenceId is then asked of the store).
 */
async function open(url: string, idleInTransactionMs: number) {
  const creator = await sharedEngine(url);
  const res = await creator.engine.handle(
    new Request("http://mock.test/_mock/accounts", {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ balance: 10_000_000 }),
    }),
  );
  const keys = (await res.json()) as { publicKey: string; secretKey: string };
  await creator.close();
  const { engine, store } = await sharedEngine(url, { idleInTransactionMs });
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  const post = (body: unknown) =>
    engine.handle(
      new Request("http://mock.test/payout", { method: "POST", headers, body: JSON.stringify(body) }),
    );
  return { store, post };
}

async function countRows(url: string, sql: string): Promise<number> {
  const db = await openPostgres(url, { max: 1 });
  try {
    return Number((await db.query<{ n: string }>(sql)).rows[0]?.n);
  } finally {
    await db.close();
  }
}

it("runs a request again when the server ended its transaction before the commit, and stores it once", async () => {
  const url = await newDatabase("again");
  const { store, post } = await open(url, 200);
  // the account is read, and its copy current
  expect((await post(payoutBody({ referenceId: "warm", amount: 500 }))).status).toBe(201);
  // Another session holds the payouts table: the request's read of its referenceId waits there, while
  // its own transaction (the account's lock) sits idle past the limit and the server ends it.
  const blocker = await openPostgres(url, { max: 1 });
  const tx = await (blocker.begin as NonNullable<SqlDatabase["begin"]>)();
  await tx.query("LOCK TABLE paykit_payouts IN ACCESS EXCLUSIVE MODE");
  const answer = post(payoutBody({ referenceId: "again-1", amount: 2_500 }));
  await new Promise((resolve) => setTimeout(resolve, 800));
  await tx.rollback();
  await blocker.close();
  const res = await answer;
  const body = (await res.json()) as { referenceId?: string; message?: string };
  expect(res.status, body.message).toBe(201);
  expect(body.referenceId).toBe("again-1");
  expect(store.ended).toBeGreaterThan(0);
  expect(
    await countRows(url, "SELECT count(*)::text AS n FROM paykit_payouts WHERE reference_id = 'again-1'"),
  ).toBe(1);
});

it("2,000 payouts at once on one account are created, not all refused as one ended transaction, and a refused one stores nothing", async () => {
  const url = await newDatabase("again");
  // A third of the default limit. One transaction for all of them sat idle while each asked the store for
  // its referenceId in turn (2 s here, past 2 s on a starved CI machine), and every one failed.
  const { post } = await open(url, 700);
  const burst = (prefix: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await post(payoutBody({ referenceId: `${prefix}-${i}`, amount: 500 }));
        return { status: res.status, body: (await res.json()) as { message?: string } };
      }),
    );
  // a first burst warms the process (its first groups also wait for the compiler, and the collector)
  await burst("warm", 100);
  const answers = await burst("many", 2000);
  const created = answers.filter((a) => a.status === 201).length;
  console.log(`run-again: ${created} of 2,000 payouts created at once with a 700 ms idle limit`);
  // Before, none was created: their one transaction was ended, run after run. Now a group of at most 64
  // is ended only when the process stalls past the limit three runs in a row: on a loaded 2-core CI
  // machine 2,000 of 2,000 were created in most runs, 1,808 in one (three groups), so the bar is half,
  // well clear of both. Whatever is refused is answered the 503 that says nothing of it is stored, and
  // nothing is.
  expect(created).toBeGreaterThanOrEqual(1_000);
  for (const refused of answers.filter((a) => a.status !== 201)) {
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/nothing of it is stored/);
  }
  expect(
    await countRows(url, "SELECT count(*)::text AS n FROM paykit_payouts WHERE reference_id LIKE 'many-%'"),
  ).toBe(created);
});
