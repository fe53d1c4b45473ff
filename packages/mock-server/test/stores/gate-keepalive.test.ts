// A transaction that waits in its process for its turn at an account's row lock (account-gate.ts) sits
// idle in its transaction meanwhile; it keeps its session from the idle-in-transaction limit while it
// waits, so that a hot account's turns, however long, never end the sessions of those behind them
// (docs/decisions/sandbox-store.md, "One session per account in the lock's queue").
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import type { StoreTx } from "../../src/domain/repository.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody } from "../fixtures.js";
import { closeSharedEngines, newDatabase, openAccount, sharedEngine } from "./processes.js";

afterEach(closeSharedEngines);

/**
 * The processes' idle limit here: short, so that a wait outlasts it, yet long enough that a process
 * starved by a busy CI machine between two of its statements does not reach it (300 ms did, once).
 */
const IDLE_LIMIT_MS = 1_000;
/** How long the first transaction holds the account's row: several idle limits. */
const HELD_S = 2.5;
/** How long the second test's other session holds the account's row each time: past the limit. */
const TURN_S = 1.5;
const PAYOUTS_PER_PROCESS = 20;

/** Runs a statement in a SQL store's transaction (its reads are not part of the repository). */
const sleepIn = (tx: StoreTx, seconds: number) =>
  (tx as unknown as { read(text: string, params: unknown[]): Promise<unknown> }).read("SELECT pg_sleep($1)", [
    seconds,
  ]);

it("a transaction waiting for its process's turn at an account's lock outlasts the idle limit", async () => {
  const url = await newDatabase("gatekeep");
  const { store } = await sharedEngine(url, { idleInTransactionMs: IDLE_LIMIT_MS });
  const accountId = await store.transaction(async (tx) => tx.sandbox.defaultAccountId, { write: false });
  if (accountId === null) throw new Error("the sandbox has no default account");
  let entered!: () => void;
  const holding = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const first = store.transaction(async (tx) => {
    await tx.account(accountId, { lock: true });
    entered();
    // busy with the row, not idle: the limit does not end this one
    await sleepIn(tx, HELD_S);
  });
  await holding;
  let runs = 0;
  const second = store
    .transaction(async (tx) => {
      runs += 1;
      const account = await tx.account(accountId, { lock: true });
      return account?.id;
    })
    .catch((error: unknown) => error);
  await first;
  expect(await second).toBe(accountId);
  expect(runs).toBe(1);
}, 60_000);

it("two processes' requests queued behind a row held in turns answer 201, each once, however long they wait", async () => {
  const url = await newDatabase("gatekeep2");
  const keys = await openAccount(url, { balance: 10_000_000 });
  const processes = [
    await sharedEngine(url, { idleInTransactionMs: IDLE_LIMIT_MS }),
    await sharedEngine(url, { idleInTransactionMs: IDLE_LIMIT_MS }),
  ];
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  const db = await openPostgres(url, { max: 1 });
  const holder = await db.begin();
  await holder.query("SELECT id FROM paykit_accounts WHERE id = $1 FOR UPDATE", [keys.accountId]);
  // 20 payouts per process, each locking the account: one per process waits in the database's queue,
  // the others at the process's gate, idle in their transactions
  const answers = processes.flatMap(({ engine }, p) =>
    Array.from({ length: PAYOUTS_PER_PROCESS }, async (_, i) => {
      const answer = await engine.handle(
        new Request("http://mock.test/payout", {
          method: "POST",
          headers,
          body: JSON.stringify(payoutBody({ referenceId: `p${p}-${i}`, amount: 500 })),
        }),
      );
      return answer.status;
    }),
  );
  // The row is held 1.5 s at a time, four times: the queue moves one payout per process per turn, and
  // a waiter whose session the limit ended would have run three times and answered 503 by the end
  // (without the keep-alive, 25 of the 40 did).
  await sleep(TURN_S * 1000);
  await holder.commit();
  for (let turn = 1; turn < 4; turn++) {
    const again = await db.begin();
    await again.query("SELECT id FROM paykit_accounts WHERE id = $1 FOR UPDATE", [keys.accountId]);
    await sleep(TURN_S * 1000);
    await again.commit();
  }
  expect(await Promise.all(answers)).toEqual(Array(2 * PAYOUTS_PER_PROCESS).fill(201));
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM paykit_payouts WHERE account_id = $1",
    [keys.accountId],
  );
  expect(rows[0]?.n).toBe(2 * PAYOUTS_PER_PROCESS);
  await db.close();
}, 120_000);
