// Mock processes stopping under load never run one request twice, and never hold up the others.
// Three `paykit-mock` processes on one PostgreSQL database, under a load of POST /payin with unique
// referenceIds and a control `pay` of each payin sent to another process; then a rolling SIGTERM, a
// kill -9 of one process, and one held in SIGSTOP. After each: every payin answered 201 is stored once,
// no referenceId is stored twice, no `pay` answered 4xx (a second run of a pay that succeeded would: the
// payin is no longer PENDING), every payin answered paid is APPROVED, the 503s are few, and the other
// processes kept answering all along (each request is a transaction of its own that commits before it is
// answered: docs/decisions/shared-sandbox-every-process-serves.md).
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, pixPayin } from "../fixtures.js";
import {
  ADMIN,
  killAll,
  longestGap,
  newDatabase,
  startMockProcess,
  stopMidTransaction,
} from "./processes.js";

const KEYS = { publicKey: "pk_test_failover01", secretKey: "sk_test_failover01" };
const CLIENTS = 12;
/** A client's longest wait for one answer: past a process held in SIGSTOP for {@link STOP_MS}. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How long a process is held in SIGSTOP. */
const STOP_MS = 12_000;
/**
 * The longest the processes that go on may leave their clients without an answer during an event.
 * Under this load they answer every few milliseconds, and nothing they do waits for the process that
 * stops: there is no leader, no heartbeat and no lease on a request's path, and a process that stops or
 * dies takes its transactions with it (PostgreSQL sees its socket close); a stopped one's open
 * transaction holds its rows until the server ends its session, 2 s idle, and it has no other session
 * in the queue for them (stores/sql/account-gate.ts; before it, 2 s per request it had waiting: 12 s
 * in a CI run). 6 s is room for that and a busy 2-core machine (the replacement process starting
 * beside them, other suites, a GC pause), and stays well under {@link STOP_MS}: a survivor waiting for
 * the stopped process until it woke would exceed it.
 */
const MAX_GAP_MS = 6_000;

afterEach(killAll);

interface Mock {
  child: ChildProcess;
  url: string;
}

/** What the clients were answered. */
interface Tally {
  created: Map<string, string>;
  paid: Set<string>;
  /** Pays answered 4xx: a second run of one that had succeeded. */
  payRefused: { id: string; status: number; body: string }[];
  unavailable: number;
  /** Requests that got no answer at all (their process stopped or was killed). */
  cut: number;
  rounds: number;
  /** When each answer came, and from which process. */
  answers: { url: string; at: number }[];
}

/** Clients that create payins on one live process and pay each on another, until `stopped()`. */
function runLoad(alive: () => Mock[], stopped: () => boolean): { tally: Tally; done: Promise<void> } {
  const tally: Tally = {
    created: new Map(),
    paid: new Set(),
    payRefused: [],
    unavailable: 0,
    cut: 0,
    rounds: 0,
    answers: [],
  };
  const headers = { authorization: basic(KEYS), "content-type": "application/json" };
  const send = async (url: string, path: string, init: RequestInit) => {
    try {
      const res = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await res.text();
      tally.answers.push({ url, at: Date.now() });
      if (res.status === 503) tally.unavailable += 1;
      return { status: res.status, body };
    } catch {
      tally.cut += 1;
      return null;
    }
  };
  const client = async (n: number) => {
    for (let i = 0; !stopped(); i++) {
      const processes = alive();
      const referenceId = `fo-${n}-${i}`;
      const on = processes[(n + i) % processes.length]!.url;
      const created = await send(on, "/payin", {
        method: "POST",
        headers,
        body: JSON.stringify(pixPayin({ referenceId })),
      });
      if (created?.status !== 201) continue;
      const { id } = JSON.parse(created.body) as { id: string };
      tally.created.set(id, referenceId);
      // paid on another process than the one that created it
      const others = alive().filter((p) => p.url !== on);
      const paid = await send(others[(n + i) % others.length]!.url, `/_mock/payins/${id}/pay`, {
        method: "POST",
        headers: ADMIN,
      });
      if (paid?.status === 200) tally.paid.add(id);
      else if (paid !== null && paid.status >= 400 && paid.status < 500)
        tally.payRefused.push({ id, status: paid.status, body: paid.body });
      tally.rounds += 1;
    }
  };
  return { tally, done: Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n))).then(() => {}) };
}

/** The longest time in `[from, to]` without an answer from a process other than `gone`. */
function othersGap(tally: Tally, gone: Mock, from: number, to: number): number {
  const at = tally.answers.filter((a) => a.url !== gone.url).map((a) => a.at);
  return longestGap(at, from, to);
}

/** The checks after the event, read from the database itself. */
async function expectEachRunOnce(url: string, tally: Tally, label: string, gaps: number[]): Promise<void> {
  console.log(
    `${label}: ${tally.created.size} payins created, ${tally.paid.size} paid, ${tally.unavailable} answers 503, ${tally.cut} requests cut off with their process; the others' longest gap ${Math.max(...gaps)} ms`,
  );
  // soft: the stored rows below are checked even when this fails
  for (const gap of gaps)
    expect.soft(gap, `${label}: the other processes stopped answering`).toBeLessThan(MAX_GAP_MS);
  expect(tally.payRefused, "a pay answered 4xx: it ran twice").toEqual([]);
  const db = await openPostgres(url, { max: 1 });
  try {
    const { rows } = await db.query<{ id: string; reference_id: string; status: string }>(
      `SELECT p.id, p.record->>'referenceId' AS reference_id, p.status FROM paykit_payins p
         JOIN paykit_accounts a ON a.id = p.account_id WHERE a.public_key = $1`,
      [KEYS.publicKey],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, referenceId] of tally.created) {
      expect(byId.get(id)?.reference_id, `payin ${id} answered 201`).toBe(referenceId);
    }
    const twice = await db.query(
      `SELECT record->>'referenceId' AS reference_id, count(*)::int AS n FROM paykit_payins GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(twice.rows, "a referenceId stored twice: a POST /payin ran twice").toEqual([]);
    for (const id of tally.paid) expect(byId.get(id)?.status, `payin ${id} answered paid`).toBe("APPROVED");
  } finally {
    await db.close();
  }
  // Few 503s: a process that goes answers its own in-flight requests 503 ("the mock is stopping") or
  // not at all, and no client has more than one request in flight; the processes that go on answer
  // none (nothing of theirs waits for the one that went).
  expect(tally.unavailable).toBeLessThanOrEqual(CLIENTS);
}

async function startThree(url: string): Promise<Mock[]> {
  const processes: Mock[] = [];
  for (let i = 0; i < 3; i++) processes.push(await startMockProcess(KEYS, ["--store", url, "--manual"]));
  return processes;
}

const waitForRounds = (tally: Tally, more: number, timeout = 40_000) => {
  const target = tally.rounds + more;
  return expect.poll(() => tally.rounds, { timeout, interval: 50 }).toBeGreaterThanOrEqual(target);
};

/**
 * Three processes on a new database under load: `event` disrupts them, says through `serve` which
 * processes the new rounds go to, and answers the others' longest gaps; then the load stops, and each
 * request must have run once.
 */
async function underLoad(
  label: string,
  event: (on: {
    url: string;
    processes: Mock[];
    tally: Tally;
    serve: (alive: Mock[]) => void;
  }) => Promise<number[]>,
): Promise<void> {
  const url = await newDatabase("failover");
  const processes = await startThree(url);
  let alive = processes;
  let stop = false;
  const load = runLoad(
    () => alive,
    () => stop,
  );
  let gaps: number[] = [];
  try {
    gaps = await event({
      url,
      processes,
      tally: load.tally,
      serve: (next) => {
        alive = next;
      },
    });
  } finally {
    stop = true;
    await load.done;
  }
  await expectEachRunOnce(url, load.tally, label, gaps);
}

describe("processes stopping under load on PostgreSQL", () => {
  it(
    "rolling SIGTERM of each of three processes: each request runs once",
    () =>
      underLoad("rolling SIGTERM", async ({ url, processes: first, tally, serve }) => {
        let processes = first;
        const gaps: number[] = [];
        await waitForRounds(tally, 40);
        for (let i = 0; i < 3; i++) {
          const victim = processes[0]!;
          // the others carry the load while it stops; its replacement joins at the end of the list
          processes = processes.slice(1);
          serve(processes);
          const from = Date.now();
          victim.child.kill("SIGTERM");
          await once(victim.child, "exit");
          processes = [...processes, await startMockProcess(KEYS, ["--store", url, "--manual"])];
          serve(processes);
          await waitForRounds(tally, 30);
          gaps.push(othersGap(tally, victim, from, Date.now()));
        }
        return gaps;
      }),
    120_000,
  );

  it(
    "kill -9 of one process: only its own requests go unanswered, and none runs twice",
    () =>
      underLoad("kill -9 of one process", async ({ processes, tally, serve }) => {
        const victim = processes[1]!;
        await waitForRounds(tally, 60);
        // its own clients lose their connections; the others' keep being served
        serve(processes.filter((p) => p !== victim));
        const from = Date.now();
        victim.child.kill("SIGKILL");
        await once(victim.child, "exit");
        await waitForRounds(tally, 60);
        return [othersGap(tally, victim, from, Date.now())];
      }),
    120_000,
  );

  it(
    "one held in SIGSTOP mid-transaction while the others serve, then woken: each request runs once",
    () =>
      underLoad("SIGSTOP of one process", async ({ url, processes, tally, serve }) => {
        const sleeper = processes[2]!;
        await waitForRounds(tally, 40);
        // stopped while it serves; new rounds go to the others, and the requests it holds wait for it
        // (so do the rows they locked)
        const tries = await stopMidTransaction(sleeper.child.pid!, url);
        serve(processes.filter((p) => p !== sleeper));
        const from = Date.now();
        console.log(`SIGSTOP with a transaction open, at try ${tries}`);
        let wokenAt = 0;
        try {
          await sleep(STOP_MS);
        } finally {
          process.kill(sleeper.child.pid!, "SIGCONT");
          wokenAt = Date.now();
        }
        const gap = othersGap(tally, sleeper, from, wokenAt);
        serve(processes);
        await waitForRounds(tally, 30);
        // the woken process answers again
        await expect
          .poll(() => tally.answers.some((a) => a.url === sleeper.url && a.at > wokenAt), { timeout: 30_000 })
          .toBe(true);
        return [gap];
      }),
    120_000,
  );
});
