// Several mock processes on one PostgreSQL store (`--store postgres://…`): one leads, the others forward to
// it, and one of them takes over when it stops or dies. Against Debian's PostgreSQL on loopback: mock
// servers in this process for the routing, then three `paykit-mock` processes for the load, the
// concurrency invariants and `kill -9` of the leader while the others keep serving.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createMockServer, type MockServer, type MockServerOptions } from "../../src/index.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";

const ADMIN = "admin-token-for-cluster-tests";
const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };

let databases = 0;
async function newDatabase(): Promise<string> {
  const url = inject("postgresUrl");
  const name = `cluster_${process.pid}_${++databases}`;
  const db = await openPostgres(url, { max: 1 });
  await db.query(`CREATE DATABASE ${name}`);
  await db.close();
  return url.replace(/\/[^/]*$/, `/${name}`);
}

const servers: MockServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const server of servers.splice(0)) await server.close();
});

async function member(url: string, extra: MockServerOptions = {}): Promise<MockServer> {
  const server = await createMockServer({ store: { url }, adminToken: ADMIN, autoAdvance: false, ...extra });
  servers.push(server);
  return server;
}

describe("mock processes sharing one PostgreSQL store", () => {
  it("have one leader; a follower serves every kind of request through it, with its own URLs", async () => {
    const url = await newDatabase();
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
  }, 60_000);

  it("hand over to a follower when the leader stops: nothing saved is lost", async () => {
    const url = await newDatabase();
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
  }, 60_000);
});

const CLI = fileURLToPath(new URL("../../src/transports/node/cli.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;
const KEYS = { publicKey: "pk_test_cluster001", secretKey: "sk_test_cluster001" };

/** Starts a `paykit-mock` process on the store; answers its URL and pid once it listens. */
async function startProcess(url: string, args: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX_LOADER,
      "--conditions=@paykit/source",
      CLI,
      "--port",
      "0",
      "--store",
      url,
      "--admin-token",
      ADMIN,
      "--default-keys",
      `${KEYS.publicKey}:${KEYS.secretKey}`,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error(`paykit-mock did not start: ${stderr}`);
  return { child, url: String(first.value).replace("Paykit mock listening on ", "") };
}

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

/** A receiver that answers 200 and records each delivery. */
async function receiver() {
  const received: { webhookId: string; id: string; status: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const event = JSON.parse(body) as { id: string; status: string };
      received.push({ webhookId: String(req.headers["webhook-id"]), id: event.id, status: event.status });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("three paykit-mock processes on one PostgreSQL", () => {
  it("1,000 concurrent payouts spread over them never overdraw and never reuse a referenceId", async () => {
    const url = await newDatabase();
    const processes: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; i < 3; i++) processes.push(await startProcess(url, ["--manual"]));
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

  it("kill -9 of the leader under load: another takes over, nothing answered is lost, every event is sent once", async () => {
    const url = await newDatabase();
    const hook = await receiver();
    const processes: { child: ChildProcess; url: string }[] = [];
    for (let i = 0; i < 3; i++) processes.push(await startProcess(url, ["--manual"]));
    const leader = await leaderPid(url);
    const victim = processes.find((p) => p.child.pid === leader);
    expect(victim, "one of the three leads").toBeDefined();
    const survivors = processes.filter((p) => p !== victim);
    const headers = { authorization: basic(KEYS), "content-type": "application/json" };
    const createdPayouts = new Set<string>();
    const paidPayins = new Set<string>();
    let answered = 0;
    let stop = false;
    let unavailable = 0;
    // 30 clients on the two processes that stay, so the load goes on through the takeover
    const client = async (n: number) => {
      const target = survivors[n % 2]!;
      for (let i = 0; !stop; i++) {
        try {
          const payout = await fetch(`${target.url}/payout`, {
            method: "POST",
            headers,
            body: JSON.stringify(payoutBody({ referenceId: `k-${n}-${i}`, amount: 1_000 })),
          });
          if (payout.status === 201) createdPayouts.add(((await payout.json()) as { id: string }).id);
          else {
            if (payout.status === 503) unavailable += 1;
            await payout.arrayBuffer();
          }
          const payin = await fetch(`${target.url}/payin`, {
            method: "POST",
            headers,
            body: JSON.stringify(pixPayin({ webhookUrl: hook.url })),
          });
          if (payin.status !== 201) {
            await payin.arrayBuffer();
            continue;
          }
          const { id } = (await payin.json()) as { id: string };
          const paid = await fetch(`${target.url}/_mock/payins/${id}/pay`, {
            method: "POST",
            headers: admin,
          });
          if (paid.status === 200) paidPayins.add(id);
          await paid.arrayBuffer();
          answered += 1;
        } catch {
          // a connection cut while the leader died
        }
      }
    };
    const load = Promise.all(Array.from({ length: 30 }, (_, n) => client(n)));
    await expect.poll(() => answered, { timeout: 30_000, interval: 20 }).toBeGreaterThan(60);
    victim!.child.kill("SIGKILL");
    const killedAt = answered;
    // the others keep answering: a new leader took over
    await expect.poll(() => answered, { timeout: 30_000, interval: 50 }).toBeGreaterThan(killedAt + 60);
    stop = true;
    await load;
    expect(await leaderPid(url)).not.toBe(leader);
    console.log(
      `kill -9 of the leader: ${createdPayouts.size} payouts and ${paidPayins.size} paid payins answered; ${unavailable} answers 503 during the takeover`,
    );

    const [one] = survivors;
    const listed: { id: string; amount: number; referenceId: string }[] = [];
    for (let page = 1; ; page++) {
      const res = await fetch(`${one!.url}/payout?limit=100&page=${page}`, { headers });
      const body = (await res.json()) as { data: typeof listed; meta: { totalPages: number } };
      listed.push(...body.data);
      if (page >= body.meta.totalPages) break;
    }
    const ids = new Set(listed.map((p) => p.id));
    for (const id of createdPayouts) expect(ids.has(id), `payout ${id} answered 201`).toBe(true);
    expect(new Set(listed.map((p) => p.referenceId)).size).toBe(listed.length);
    const accounts = (await (await fetch(`${one!.url}/_mock/accounts`, { headers: admin })).json()) as {
      data: { accountId: string; publicKey: string; balance: { available: number; pending: number } }[];
    };
    const own = accounts.data.find((a) => a.publicKey === KEYS.publicKey)!;
    const payins = (
      (await (
        await fetch(`${one!.url}/_mock/payins?accountId=${own.accountId}&limit=1000`, { headers: admin })
      ).json()) as { data: { id: string; status: string; netAmount: number | null }[] }
    ).data;
    expect(payins.length).toBeLessThan(1000);
    const credited = payins.reduce((sum, p) => sum + (p.status === "APPROVED" ? (p.netAmount ?? 0) : 0), 0);
    const debited = listed.reduce((sum, p) => sum + p.amount, 0);
    expect(own.balance.available).toBe(1_000_000 + credited - debited);
    const approved = new Set(payins.filter((p) => p.status === "APPROVED").map((p) => p.id));
    for (const id of paidPayins) expect(approved.has(id), `payin ${id} answered paid`).toBe(true);
    await fetch(`${one!.url}/_mock/webhooks/flush`, { method: "POST", headers: admin });
    await expect
      .poll(() => new Set(hook.received.filter((r) => r.status === "APPROVED").map((r) => r.id)).size, {
        timeout: 20_000,
      })
      .toBe(approved.size);
    const idsPerEvent = new Map<string, Set<string>>();
    for (const r of hook.received) {
      const key = `${r.id}:${r.status}`;
      idsPerEvent.set(key, (idsPerEvent.get(key) ?? new Set()).add(r.webhookId));
    }
    for (const [event, webhookIds] of idsPerEvent) expect(webhookIds.size, event).toBe(1);
    await hook.close();
  }, 120_000);
});
