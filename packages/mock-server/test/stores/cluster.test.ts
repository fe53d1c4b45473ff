// Several mock processes on one PostgreSQL store (`--store postgres://…`): one leads, the others forward to
// it, and one of them takes over when it stops or dies. Against Debian's PostgreSQL on loopback: mock
// servers in this process for the routing, then three `paykit-mock` processes for the load, the
// concurrency invariants and `kill -9` of the leader while the others keep serving.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, type MockServerOptions } from "../../src/index.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";
import {
  ADMIN,
  ADMIN_TOKEN,
  expectNothingLost,
  killAll,
  newDatabase,
  runLoad,
  startMockProcess,
  webhookReceiver,
} from "./processes.js";

const admin = ADMIN;

const servers: MockServer[] = [];
afterEach(async () => {
  killAll();
  for (const server of servers.splice(0)) await server.close();
});

async function member(url: string, extra: MockServerOptions = {}): Promise<MockServer> {
  const server = await createMockServer({
    store: { url },
    adminToken: ADMIN_TOKEN,
    autoAdvance: false,
    ...extra,
  });
  servers.push(server);
  return server;
}

describe("mock processes sharing one PostgreSQL store", () => {
  it("have one leader; a follower serves every kind of request through it, with its own URLs", async () => {
    const url = await newDatabase("cluster");
    const a = await member(url);
    const b = await member(url);
    expect([a.store.role, b.store.role]).toEqual(["leader", "follower"]);
    expect(b.account).toEqual(a.account);
    const headers = { authorization: basic(a.account), "content-type": "application/json" };

    const created = await fetch(`${b.url}/payin`, {
      method: "POST",
      headers,
      body: JSON.stringify(pixPayin()),
    });
    expect(created.status).toBe(201);
    const payin = (await created.json()) as { id: string };
    const read = await fetch(`${a.url}/payin/${payin.id}`, { headers });
    expect(read.status).toBe(200);
    const head = await fetch(`${b.url}/payin/${payin.id}`, { method: "HEAD", headers });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    // URLs handed out name the process the client called
    const boleto = await fetch(`${b.url}/payin`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...pixPayin(), paymentMethod: "BOLETO" }),
    });
    expect(((await boleto.json()) as { boleto: { url: string } }).boleto.url.startsWith(b.url)).toBe(true);
    // errors, control calls and the shared sandbox's rules pass through unchanged
    expect((await fetch(`${b.url}/payin/pi_missing`, { headers })).status).toBe(404);
    expect((await fetch(`${b.url}/_mock/clock`)).status).toBe(401);
    expect((await fetch(`${b.url}/_mock/clock`, { headers: admin })).status).toBe(200);
    const paid = await fetch(`${b.url}/_mock/payins/${payin.id}/pay`, { method: "POST", headers: admin });
    expect(paid.status).toBe(200);
    expect((await a.control.payins(a.account.accountId)).find((p) => p.id === payin.id)?.status).toBe(
      "APPROVED",
    );
    expect((await b.control.payins(a.account.accountId)).find((p) => p.id === payin.id)?.status).toBe(
      "APPROVED",
    );
    // a peer header sent by a client is not trusted
    const spoofed = await fetch(`${a.url}/payin`, {
      method: "POST",
      headers: { ...headers, "x-paykit-peer-token": "guess", "x-paykit-peer-base": "https://evil.test" },
      body: JSON.stringify({ ...pixPayin(), paymentMethod: "BOLETO" }),
    });
    expect(((await spoofed.json()) as { boleto: { url: string } }).boleto.url.startsWith(a.url)).toBe(true);
    // a dropResponse fault cuts the client's own connection, through the follower too
    await a.control.addFault({ path: "/payout", method: "GET", dropResponse: true });
    await expect(fetch(`${b.url}/payout`, { headers })).rejects.toThrow();
  }, 120_000);

  it("refuse to start, saying where, when the database cannot be reached (the password is not shown)", async () => {
    const start = createMockServer({
      store: { url: "postgres://paykit:s3cret@127.0.0.1:1/sandbox" },
      adminToken: ADMIN_TOKEN,
    });
    await expect(start).rejects.toThrow(
      /could not connect to the PostgreSQL store at postgres:\/\/paykit@127\.0\.0\.1:1\/sandbox: .*ECONNREFUSED/,
    );
    await expect(start).rejects.not.toThrow(/s3cret/);
  });

  it("hand over to a follower when the leader stops: nothing saved is lost", async () => {
    const url = await newDatabase("cluster");
    const a = await member(url);
    const b = await member(url);
    const headers = { authorization: basic(a.account), "content-type": "application/json" };
    const payout = await fetch(`${b.url}/payout`, {
      method: "POST",
      headers,
      body: JSON.stringify(payoutBody()),
    });
    expect(payout.status).toBe(201);
    const { id } = (await payout.json()) as { id: string };
    await a.close();
    await expect.poll(() => b.store.role, { timeout: 10_000 }).toBe("leader");
    const listed = await fetch(`${b.url}/payout`, { headers });
    expect(((await listed.json()) as { data: { id: string }[] }).data.map((p) => p.id)).toEqual([id]);
    const c = await member(url);
    expect(c.store.role).toBe("follower");
    expect((await fetch(`${c.url}/payout`, { headers })).status).toBe(200);
  }, 120_000);
});

const KEYS = { publicKey: "pk_test_cluster001", secretKey: "sk_test_cluster001" };

/** The pid of the process that leads, as it published itself in the store. */
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

describe("three paykit-mock processes on one PostgreSQL", () => {
  it("1,000 concurrent payouts spread over them never overdraw and never reuse a referenceId", async () => {
    const url = await newDatabase("cluster");
    const processes: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; i < 3; i++) processes.push(await startMockProcess(KEYS, ["--store", url, "--manual"]));
    const headers = { authorization: basic(KEYS), "content-type": "application/json" };
    // 1,000 payouts of 3,000 cents on a balance of 1,000,000: each referenceId is sent twice, to two
    // different processes, and the 500 distinct ones ask for 1,500,000 cents: a third must be refused
    const answers = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const target = processes[i % 3]!;
        const res = await fetch(`${target.url}/payout`, {
          method: "POST",
          headers,
          body: JSON.stringify(payoutBody({ referenceId: `dup-${i >> 1}`, amount: 3_000 })),
        });
        const body = (await res.json()) as { id?: string; code?: string; referenceId?: string };
        return { status: res.status, body };
      }),
    );
    const created = answers.filter((a) => a.status === 201);
    const codes = new Set(answers.filter((a) => a.status !== 201).map((a) => a.body.code));
    expect([...codes].sort()).toEqual(["INSUFFICIENT_FUNDS", "INVALID_DATA"]);
    expect(new Set(created.map((a) => a.body.referenceId)).size).toBe(created.length);
    expect(created.length).toBe(333);
    console.log(
      `3 processes: ${created.length} of 1,000 payouts created, ${answers.length - created.length} refused (${[...codes].join(", ")})`,
    );
    const db = await openPostgres(url, { max: 1 });
    try {
      const twice = await db.query(
        "SELECT account_id, reference_id FROM paykit_payouts GROUP BY 1, 2 HAVING count(*) > 1",
      );
      expect(twice.rows).toEqual([]);
      const { rows } = await db.query<{ available: string; debited: string }>(
        `SELECT b.available::text, (SELECT sum(amount) FROM paykit_payouts p WHERE p.account_id = b.account_id)::text AS debited
           FROM paykit_balances b JOIN paykit_accounts a ON a.id = b.account_id
          WHERE a.public_key = $1`,
        [KEYS.publicKey],
      );
      expect(Number(rows[0]?.debited)).toBe(created.length * 3_000);
      expect(Number(rows[0]?.available)).toBe(1_000_000 - created.length * 3_000);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a leader that hangs (SIGSTOP) is replaced; woken, it follows the new one", async () => {
    const url = await newDatabase("cluster");
    const processes: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; i < 2; i++) processes.push(await startMockProcess(KEYS, ["--store", url, "--manual"]));
    const hung = await leaderPid(url);
    const sleeper = processes.find((p) => p.child.pid === hung)!;
    const other = processes.find((p) => p !== sleeper)!;
    const headers = { authorization: basic(KEYS), "content-type": "application/json" };
    const create = (target: string, referenceId: string) =>
      fetch(`${target}/payout`, {
        method: "POST",
        headers,
        body: JSON.stringify(payoutBody({ referenceId, amount: 1_000 })),
        signal: AbortSignal.timeout(5_000),
      }).then(
        (res) => res.status,
        () => 0,
      );
    expect(await create(other.url, "before")).toBe(201);
    process.kill(hung, "SIGSTOP");
    try {
      // its session stays open, but its heartbeat stops: the other process ends that session and leads
      const started = Date.now();
      await expect.poll(() => leaderPid(url), { timeout: 40_000, interval: 250 }).toBe(other.child.pid);
      console.log(`a hung leader was replaced after ${Date.now() - started} ms`);
      expect(await create(other.url, "during")).toBe(201);
    } finally {
      process.kill(hung, "SIGCONT");
    }
    // woken, it finds its session gone and forwards to the new leader
    let n = 0;
    await expect
      .poll(() => create(sleeper.url, `after-${n++}`), { timeout: 30_000, interval: 250 })
      .toBe(201);
    const listed = await fetch(`${other.url}/payout?limit=100`, { headers });
    const refs = ((await listed.json()) as { data: { referenceId: string }[] }).data.map(
      (p) => p.referenceId,
    );
    expect(refs).toContain("before");
    expect(refs).toContain("during");
    expect(new Set(refs).size).toBe(refs.length);
  }, 120_000);

  it("kill -9 of the leader under load: another takes over, nothing answered is lost, every event is sent once", async () => {
    const url = await newDatabase("cluster");
    const hook = await webhookReceiver();
    const processes: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; i < 3; i++) processes.push(await startMockProcess(KEYS, ["--store", url, "--manual"]));
    const leader = await leaderPid(url);
    const victim = processes.find((p) => p.child.pid === leader);
    expect(victim, "one of the three leads").toBeDefined();
    const survivors = processes.filter((p) => p !== victim);
    let stop = false;
    // 30 clients on the two processes that stay, so the load goes on through the takeover
    const load = runLoad({
      keys: KEYS,
      target: (n) => survivors[n % 2]!.url,
      referenceOf: (n, i) => `k-${n}-${i}`,
      amountOf: () => 1_000,
      webhookUrl: hook.url,
      stopped: () => stop,
    });
    await expect.poll(() => load.outcome.answered, { timeout: 30_000, interval: 20 }).toBeGreaterThan(60);
    victim!.child.kill("SIGKILL");
    const killedAt = load.outcome.answered;
    // the others keep answering: a new leader took over
    await expect
      .poll(() => load.outcome.answered, { timeout: 30_000, interval: 50 })
      .toBeGreaterThan(killedAt + 60);
    stop = true;
    await load.done;
    expect(await leaderPid(url)).not.toBe(leader);
    console.log(
      `kill -9 of the leader: ${load.outcome.createdPayouts.size} payouts and ${load.outcome.paidPayins.size} paid payins answered; ${load.outcome.unavailable} answers 503 during the takeover`,
    );
    try {
      await expectNothingLost(survivors[0]!.url, KEYS, load.outcome, hook.received);
    } finally {
      await hook.close();
    }
  }, 120_000);
});
