// A mock process stopped (SIGSTOP, a debugger) while several of its requests wait for one account's
// row lock holds that account up for one idle-in-transaction limit, not one per request it had
// waiting: a process puts at most one session in the database's queue for an account's lock, the
// others wait their turn in the process (docs/decisions/sandbox-store.md, "One session per account in
// the lock's queue").
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, pixPayin } from "../fixtures.js";
import { ADMIN, killAll, localPorts, newDatabase, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_lockqueue01", secretKey: "sk_test_lockqueue01" };
const WAITING = 8;
/** The mock's idle-in-transaction limit (open-store.ts) and room for a busy machine. */
const ONE_IDLE_LIMIT_AND_ROOM_MS = 6_000;

afterEach(killAll);

const createPayin = async (url: string, referenceId: string): Promise<string> => {
  const res = await fetch(`${url}/payin`, {
    method: "POST",
    headers: { authorization: basic(KEYS), "content-type": "application/json" },
    body: JSON.stringify(pixPayin({ referenceId })),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
};
/** The control's `pay` of a payin: it locks the payin's account. */
const pay = (url: string, id: string) =>
  fetch(`${url}/_mock/payins/${id}/pay`, {
    method: "POST",
    headers: ADMIN,
    signal: AbortSignal.timeout(60_000),
  });

it("a process stopped with requests waiting for an account's lock holds it up once, not once per request", async () => {
  const url = await newDatabase("lockqueue");
  const sleeper = await startMockProcess(KEYS, ["--store", url, "--manual"]);
  const other = await startMockProcess(KEYS, ["--store", url, "--manual"]);
  const payins: string[] = [];
  for (let i = 0; i <= WAITING; i++) payins.push(await createPayin(other.url, `payin-${i}`));
  const db = await openPostgres(url, { max: 2 });
  const holder = await db.begin();
  try {
    // the account's row held by this test, so that the sleeper's requests queue for it
    await holder.query("SELECT id FROM paykit_accounts WHERE public_key = $1 FOR UPDATE", [KEYS.publicKey]);
    const waiting = payins.slice(0, WAITING).map((id) =>
      pay(sleeper.url, id).then(
        (res) => res.status,
        () => 0,
      ),
    );
    const pid = sleeper.child.pid!;
    const inLockQueue = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE client_port = ANY($1::int[]) AND wait_event_type = 'Lock'`,
          [localPorts(pid)],
        )
      ).rows[0]?.n ?? 0;
    await expect.poll(inLockQueue, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);
    // all its requests in (each has read its caller by now, and waits for the lock)
    await sleep(300);
    const queued = await inLockQueue();
    process.kill(pid, "SIGSTOP");
    let waited: number;
    try {
      await holder.commit();
      // the stopped process's first session in the queue takes the row and holds it until the
      // database ends its session (2 s idle); nothing else of it may be in the queue behind
      const started = Date.now();
      const res = await pay(other.url, payins[WAITING]!);
      waited = Date.now() - started;
      expect(res.status).toBe(200);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    console.log(
      `sessions of the stopped process in the lock's queue: ${queued}; the other process answered after ${waited} ms`,
    );
    expect(queued, "sessions of one process waiting in the database for one account's lock").toBe(1);
    expect(waited).toBeLessThan(ONE_IDLE_LIMIT_AND_ROOM_MS);
    // woken, the stopped process answers its requests: each runs again on a new session, once (a
    // second run of a pay that succeeded would be refused: the payin is no longer PENDING)
    const statuses = await Promise.all(waiting);
    expect(sleeper.stderr(), "each request that the database cut off ran again").not.toContain(
      "unexpected error",
    );
    expect(statuses).toEqual(Array(WAITING).fill(200));
    const { rows } = await db.query<{ status: string }>("SELECT status FROM paykit_payins");
    expect(rows.map((r) => r.status)).toEqual(Array(WAITING + 1).fill("APPROVED"));
  } finally {
    await holder.rollback();
    await db.close();
  }
}, 120_000);
