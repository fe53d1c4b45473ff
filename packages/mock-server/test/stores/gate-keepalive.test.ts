// A transaction that waits in its process for its turn at an account's row lock (account-gate.ts) sits
// idle in its transaction meanwhile; it keeps its session from the idle-in-transaction limit while it
// waits, so that a hot account's turns, however long, never end the sessions of those behind them
// (docs/decisions/sandbox-store.md, "One session per account in the lock's queue").
import { afterEach, expect, it } from "vitest";
import type { StoreTx } from "../../src/domain/repository.js";
import { closeSharedEngines, newDatabase, sharedEngine } from "./processes.js";

afterEach(closeSharedEngines);

const IDLE_LIMIT_MS = 300;
/** How long the first transaction holds the account's row: several idle limits. */
const HELD_S = 1.5;

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
