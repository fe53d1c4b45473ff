// A failover never runs one request twice, and a follower that becomes leader serves what waited for it.
// Three `paykit-mock` processes on one PostgreSQL database, under a load of POST /payin with unique
// referenceIds and a control `pay` of each payin sent to another process; then a rolling SIGTERM, a
// kill -9 of the leader, and a process held in SIGSTOP. After each: every payin answered 201 is stored
// once, no referenceId is stored twice, no `pay` answered 4xx (a second run of a pay that succeeded
// would: the payin is no longer PENDING), every payin answered paid is APPROVED, and the 503s are few.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, pixPayin } from "../fixtures.js";
import { ADMIN, killAll, newDatabase, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_failover01", secretKey: "sk_test_failover01" };
const CLIENTS = 12;
/** A client's longest wait for one answer: past a hung leader's replacement (15 s) and a takeover. */
const REQUEST_TIMEOUT_MS = 60_000;

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
  };
  const headers = { authorization: basic(KEYS), "content-type": "application/json" };
  const send = async (url: string, init: RequestInit): Promise<{ status: number; body: string } | null> => {
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await res.text();
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
      const created = await send(`${processes[(n + i) % processes.length]!.url}/payin`, {
        method: "POST",
        headers,
        body: JSON.stringify(pixPayin({ referenceId })),
      });
      if (created?.status !== 201) continue;
      const { id } = JSON.parse(created.body) as { id: string };
      tally.created.set(id, referenceId);
      const now = alive();
      const paid = await send(`${now[(n + i + 1) % now.length]!.url}/_mock/payins/${id}/pay`, {
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

async function leaderPid(url: string): Promise<number> {
  const db = await openPostgres(url, { max: 1 });
  try {
    const { rows } = await db.query<{ value: { pid: number } }>(
      "SELECT value FROM paykit_sandbox WHERE key = 'leader'",
    );
    return rows[0]?.value.pid ?? -1;
  } finally {
    await db.close();
  }
}

/** The checks after a failover: read from the database itself, once a leader has saved everything. */
async function expectEachRunOnce(url: string, tally: Tally, label: string): Promise<void> {
  console.log(
    `${label}: ${tally.created.size} payins created, ${tally.paid.size} paid, ${tally.unavailable} answers 503, ${tally.cut} requests cut off with their process`,
  );
  expect(tally.payRefused, "a pay answered 4xx: it ran twice").toEqual([]);
  const db = await openPostgres(url, { max: 1 });
  try {
    const { rows } = await db.query<{ id: string; reference_id: string; status: string }>(
      `SELECT p.id, p.reference_id, p.status FROM paykit_payins p
         JOIN paykit_accounts a ON a.id = p.account_id WHERE a.public_key = $1`,
      [KEYS.publicKey],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, referenceId] of tally.created) {
      expect(byId.get(id)?.reference_id, `payin ${id} answered 201`).toBe(referenceId);
    }
    const twice = await db.query(
      `SELECT reference_id, count(*)::int AS n FROM paykit_payins GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(twice.rows, "a referenceId stored twice: a POST /payin ran twice").toEqual([]);
    for (const id of tally.paid) expect(byId.get(id)?.status, `payin ${id} answered paid`).toBe("APPROVED");
  } finally {
    await db.close();
  }
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

describe("a failover under load on PostgreSQL", () => {
  it("rolling SIGTERM of each of three processes: each request runs once", async () => {
    const url = await newDatabase("failover");
    let processes = await startThree(url);
    let stop = false;
    const load = runLoad(
      () => processes,
      () => stop,
    );
    try {
      await waitForRounds(load.tally, 40);
      for (let i = 0; i < 3; i++) {
        const victim = processes[0]!;
        // the others carry the load while it stops; its replacement joins at the end of the list
        processes = processes.slice(1);
        victim.child.kill("SIGTERM");
        await once(victim.child, "exit");
        processes = [...processes, await startMockProcess(KEYS, ["--store", url, "--manual"])];
        await waitForRounds(load.tally, 30);
      }
    } finally {
      stop = true;
      await load.done;
    }
    await expectEachRunOnce(url, load.tally, "rolling SIGTERM");
    // a stop is not a failure: every request of a stopping process is served by the next leader
    expect(load.tally.unavailable).toBeLessThanOrEqual(CLIENTS);
  }, 120_000);

  it("kill -9 of the leader: its followers send again what it left unanswered, and none runs twice", async () => {
    const url = await newDatabase("failover");
    const processes = await startThree(url);
    const leader = await leaderPid(url);
    const victim = processes.find((p) => p.child.pid === leader)!;
    expect(victim, "one of the three leads").toBeDefined();
    let alive = processes;
    let stop = false;
    const load = runLoad(
      () => alive,
      () => stop,
    );
    try {
      await waitForRounds(load.tally, 60);
      // its own clients lose their connections; the followers' clients keep being served
      alive = processes.filter((p) => p !== victim);
      victim.child.kill("SIGKILL");
      await once(victim.child, "exit");
      await waitForRounds(load.tally, 60);
    } finally {
      stop = true;
      await load.done;
    }
    expect(await leaderPid(url)).not.toBe(leader);
    await expectEachRunOnce(url, load.tally, "kill -9 of the leader");
    expect(load.tally.unavailable).toBeLessThanOrEqual(CLIENTS);
  }, 120_000);

  it.each(["leader", "follower"] as const)(
    "a %s held in SIGSTOP while the others serve, then woken: each request runs once",
    async (which) => {
      const url = await newDatabase("failover");
      const processes = await startThree(url);
      const leader = await leaderPid(url);
      const sleeper = processes.find((p) => (p.child.pid === leader) === (which === "leader"))!;
      let alive = processes;
      let stop = false;
      const load = runLoad(
        () => alive,
        () => stop,
      );
      try {
        await waitForRounds(load.tally, 40);
        alive = processes.filter((p) => p !== sleeper);
        process.kill(sleeper.child.pid!, "SIGSTOP");
        try {
          // a hung leader is replaced once its heartbeat is 15 s old; what waited on it is sent again
          await waitForRounds(load.tally, 60, 50_000);
        } finally {
          process.kill(sleeper.child.pid!, "SIGCONT");
        }
        alive = processes;
        await waitForRounds(load.tally, 30);
      } finally {
        stop = true;
        await load.done;
      }
      await expectEachRunOnce(url, load.tally, `SIGSTOP of a ${which}`);
      expect(load.tally.unavailable).toBeLessThanOrEqual(CLIENTS);
    },
    120_000,
  );
});
