// A request whose transaction the database ended before its commit stored nothing (its session ended:
// idle past `idle_in_transaction_session_timeout` on a process starved of CPU, or terminated): the mock
// runs it again on a new transaction and answers that run, never a 503 that says it "may" be stored. And
// many requests at once on one account never sit in one transaction long enough to be ended
// (docs/decisions/sandbox-store.md).
import { afterEach, expect, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody } from "../fixtures.js";
import { closeSharedEngines, newDatabase, openAccount, sharedEngine } from "./processes.js";

afterEach(closeSharedEngines);

/** A process on the store at `url` with the given idle limit, and a payout poster for an account another process opened. */
async function open(url: string, idleInTransactionMs: number) {
  const keys = await openAccount(url, { balance: 10_000_000 });
  const { engine, store } = await sharedEngine(url, { idleInTransactionMs });
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  const post = (body: unknown) =>
    engine.handle(
      new Request("http://mock.test/payout", { method: "POST", headers, body: JSON.stringify(body) }),
    );
  return { store, post, engine };
}

async function countRows(url: string, sql: string): Promise<number> {
  const db = await openPostgres(url, { max: 1 });
  try {
    return Number((await db.query<{ n: string }>(sql)).rows[0]?.n);
  } finally {
    await db.close();
  }
}

/**
 * Sends a request while another session holds the payouts table, so that its transaction waits in its
 * read of the referenceId, and ends that session once, before the request could commit: it runs again.
 */
async function withFirstRunEnded(url: string, send: () => Promise<Response>): Promise<Response> {
  const blocker = await openPostgres(url, { max: 1 });
  const tx = await blocker.begin();
  await tx.query("LOCK TABLE paykit_payouts IN ACCESS EXCLUSIVE MODE");
  const answer = send();
  const admin = await openPostgres(url, { max: 1 });
  let ended = 0;
  for (let i = 0; i < 200 && ended === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pg_terminate_backend(pid) AND true AS ended, pid FROM pg_stat_activity
        WHERE state = 'active' AND wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`,
    );
    ended = rows.length;
  }
  await admin.close();
  await tx.rollback();
  await blocker.close();
  expect(ended).toBe(1);
  return answer;
}

it("runs a request again when the server ended its transaction before the commit, and stores it once", async () => {
  const url = await newDatabase("again");
  const { post } = await open(url, 2_000);
  expect((await post(payoutBody({ referenceId: "warm", amount: 500 }))).status).toBe(201);
  const res = await withFirstRunEnded(url, () => post(payoutBody({ referenceId: "again-1", amount: 2_500 })));
  const body = (await res.json()) as { referenceId?: string; message?: string };
  expect(res.status, body.message).toBe(201);
  expect(body.referenceId).toBe("again-1");
  expect(
    await countRows(url, "SELECT count(*)::text AS n FROM paykit_payouts WHERE reference_id = 'again-1'"),
  ).toBe(1);
});

it("counts a request run again once against the rate limit", async () => {
  const url = await newDatabase("again");
  const { post, engine } = await open(url, 2_000);
  // two requests a minute: the warm one, and the one whose first run the server ends
  await engine.control.setRateLimit({ limit: 2, windowMs: 60_000 });
  expect((await post(payoutBody({ referenceId: "warm", amount: 500 }))).status).toBe(201);
  const res = await withFirstRunEnded(url, () => post(payoutBody({ referenceId: "again-1", amount: 2_500 })));
  const body = (await res.json()) as { message?: string };
  expect(res.status, body.message).toBe(201);
  // and the limit holds after it
  expect((await post(payoutBody({ referenceId: "third", amount: 500 }))).status).toBe(429);
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
  // Each is a transaction of its own that holds the account's lock for a few statements; the others
  // wait for a connection, not in an open transaction. A request is ended only when the process stalls
  // past the limit three runs in a row, so the bar is half, well clear of a starved CI machine. Whatever
  // is refused is answered the 503 that says nothing of it is stored, and nothing is.
  expect(created).toBeGreaterThanOrEqual(1_000);
  for (const refused of answers.filter((a) => a.status !== 201)) {
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/nothing of it is stored/);
  }
  expect(
    await countRows(url, "SELECT count(*)::text AS n FROM paykit_payouts WHERE reference_id LIKE 'many-%'"),
  ).toBe(created);
}, 180_000);
