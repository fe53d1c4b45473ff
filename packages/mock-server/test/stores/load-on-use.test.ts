// Accounts load on use (docs/decisions/shared-sandbox-accounts-load-on-use.md): a mock on a durable store reads the
// sandbox and its default account at start, every other account when a request names it (by its keys,
// its id, or a payin, payout or delivery of it), and takes idle accounts out of memory past
// `cacheRecords`. Nothing of that shows in an answer: an account read back answers exactly as before,
// and its work (an expiry, a webhook retry under the same webhook-id) runs while it is out of memory.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createHttpControl,
  createMockServer,
  type MockServer,
  type MockServerOptions,
} from "../../src/index.js";
import { openPglite, openPostgres, type SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { basic, boletoPayin, payoutBody, pixPayin, ref } from "../fixtures.js";
import { newStore, webhookReceiver } from "./store-kinds.js";

const ADMIN = "admin-token-for-load-on-use";
const running = new Set<MockServer>();
const receivers = new Set<() => Promise<void>>();
const errors: unknown[] = [];
afterEach(async () => {
  await Promise.all([...running].map((m) => m.close().catch(() => {})));
  running.clear();
  await Promise.all([...receivers].map((close) => close()));
  receivers.clear();
  const met = errors.splice(0);
  expect(met.map((e) => (e as Error)?.stack ?? String(e))).toEqual([]);
});

const STORES = {
  pglite: () => newStore("pglite", "load-on-use"),
  postgres: () => newStore("postgres", "load-on-use"),
};

async function start(
  store: MockServerOptions["store"],
  options: MockServerOptions = {},
): Promise<MockServer> {
  const mock = await createMockServer({
    store,
    adminToken: ADMIN,
    autoAdvance: false,
    // a store's failure is never silent here: the test that met it fails, naming it
    onError: (error) => errors.push(error),
    ...options,
  });
  running.add(mock);
  return mock;
}

/** The store's database, opened by the test itself (no mock may hold a data directory meanwhile). */
function sqlOf(store: MockServerOptions["store"]): Promise<SqlDatabase> {
  if (typeof store === "object" && "dataDir" in store) return openPglite(join(store.dataDir, "pglite"));
  if (typeof store === "object" && "url" in store) return openPostgres(store.url, { max: 1 });
  throw new Error("a durable store was expected");
}

async function stop(mock: MockServer): Promise<void> {
  running.delete(mock);
  await mock.close();
}

type Keys = { publicKey: string; secretKey: string };

function api(mock: MockServer, keys: Keys) {
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  return {
    get: (path: string) => fetch(mock.url + path, { headers }),
    post: (path: string, body: unknown) =>
      fetch(mock.url + path, { method: "POST", headers, body: JSON.stringify(body) }),
  };
}

/** Waits for a condition, polling; generous, for a busy machine. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until every account read in so far left memory again, sending a request of no account now and
 * then (a request's end starts a pass over the idle accounts). It compares the loads with the unloads,
 * not the unloads with a count taken after the step that read the accounts in: on a loaded machine the
 * pass can run before the test takes that count, and then no unload is left to wait for.
 */
async function untilAllLeft(mock: MockServer, what: string): Promise<void> {
  await until(what, async () => {
    const { loads, unloads } = mock.store.accountLoads;
    if (unloads >= loads) return true;
    await fetch(`${mock.url}/_mock/clock`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return false;
  });
}

/**
 * Waits until some account left memory after `unloads`, a count taken BEFORE the step that read the
 * accounts in (see {@link untilAllLeft}), poking as it does.
 */
async function untilLeft(mock: MockServer, unloads: number, what: string): Promise<void> {
  await until(what, async () => {
    if (mock.store.accountLoads.unloads > unloads) return true;
    await fetch(`${mock.url}/_mock/clock`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return false;
  });
}

/** A webhook receiver (see store-kinds.ts), closed after each test. */
async function receiver() {
  const hooks = await webhookReceiver();
  receivers.add(hooks.close);
  return hooks;
}

describe.each(["pglite", "postgres"] as const)("accounts load on use (%s)", (kind) => {
  it("a restarted store reads no account but the default one, and each one on first use", async () => {
    const store = await STORES[kind]();
    let mock = await start(store);
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const a = await control().createAccount();
    const b = await control().createAccount();
    const payinA = await (await api(mock, a).post("/payin", pixPayin({ referenceId: ref("a") }))).json();
    const payinB = await (await api(mock, b).post("/payin", pixPayin({ referenceId: ref("b") }))).json();
    const before = await (await api(mock, a).get(`/payin/${payinA.id}`)).json();
    // the default account's history: its active records read with it (at start with one process; on
    // first use on a shared PostgreSQL store, whose start reads no records), the rest when named
    const own = api(mock, mock.account);
    const settled = await (await own.post("/payin", pixPayin({ referenceId: ref("own") }))).json();
    await control().payPayin(settled.id);
    const paidOut = await own.post("/payout", payoutBody({ amount: 2_000, referenceId: "own-payout" }));
    expect(paidOut.status).toBe(201);
    const ownPayin = await (await own.get(`/payin/${settled.id}`)).json();
    const ownPayouts = await (await own.get("/payout?limit=10")).json();
    const listed = await control().accounts();
    await stop(mock);

    mock = await start(store);
    expect(mock.store.accountLoads).toMatchObject({ loads: 0, unloads: 0 });
    // the shared store's start read no records: the default account's first use reads it
    const first = kind === "postgres" ? 1 : 0;
    // the default account answers without reading another account
    expect(await (await api(mock, mock.account).get(`/payin/${settled.id}`)).json()).toEqual(ownPayin);
    expect(await (await api(mock, mock.account).get("/payout?limit=10")).json()).toEqual(ownPayouts);
    const repeated = await api(mock, mock.account).post(
      "/payout",
      payoutBody({ amount: 2_000, referenceId: "own-payout" }),
    );
    expect(repeated.status).toBe(400);
    expect(mock.store.accountLoads.loads).toBe(first);
    // the account list reads every account's settings, not their records, and keeps none of them
    expect(await control().accounts()).toEqual(listed);
    expect(mock.store.accountLoads).toMatchObject({ loads: first + 2, unloads: 2 });
    expect((await control().getAccount(b.accountId)).balance).toEqual(
      listed.find((x) => x.accountId === b.accountId)?.balance,
    );
    expect(mock.store.accountLoads).toMatchObject({ loads: first + 3, unloads: 3 });
    // a's keys read a
    expect(await (await api(mock, a).get(`/payin/${payinA.id}`)).json()).toEqual(before);
    expect(mock.store.accountLoads.loads).toBe(first + 4);
    // a control call naming b's payin reads b
    await control().payPayin(payinB.id);
    expect(mock.store.accountLoads.loads).toBe(first + 5);
    expect((await (await api(mock, b).get(`/payin/${payinB.id}`)).json()).status).toBe("APPROVED");
    // keys that match no account read nothing, and are refused as before
    const stranger = await api(mock, { publicKey: "pk_nobody", secretKey: "sk_nobody" }).get("/payout");
    expect(stranger.status).toBe(401);
    expect(mock.store.accountLoads).toMatchObject({ loads: first + 5, unloads: 3 });
  });

  it("idle accounts leave memory past cacheRecords and come back answering exactly as before", async () => {
    const store = await STORES[kind]();
    const mock = await start(store, { cacheRecords: 1 });
    const control = createHttpControl({ url: mock.url, adminToken: ADMIN });
    const accounts = await Promise.all([1, 2, 3].map(() => control.createAccount({ balance: 100_000 })));
    const seen: { keys: Keys; path: string; body: unknown }[] = [];
    for (const keys of accounts) {
      const client = api(mock, keys);
      const pix = await (await client.post("/payin", pixPayin({ referenceId: ref("pix") }))).json();
      const boleto = await (await client.post("/payin", boletoPayin({ referenceId: ref("boleto") }))).json();
      const payout = await client.post("/payout", payoutBody({ amount: 1_500, referenceId: ref("payout") }));
      expect(payout.status).toBe(201);
      for (const path of [`/payin/${pix.id}`, `/payin/${boleto.id}`, "/payout?limit=10"])
        seen.push({ keys, path, body: await (await client.get(path)).json() });
    }
    // every account but the default one holds more than the cache takes, and goes once idle
    await until("the idle accounts left memory", () => mock.store.accountLoads.unloads >= 3);
    const loads = mock.store.accountLoads.loads;
    for (const { keys, path, body } of seen)
      expect(await (await api(mock, keys).get(path)).json()).toEqual(body);
    expect(mock.store.accountLoads.loads).toBeGreaterThan(loads);
    // a payout's referenceId is still taken, and the balance still holds the first payout
    const again = await api(mock, accounts[0]!).post(
      "/payout",
      payoutBody({ amount: 1_500, referenceId: "x" }),
    );
    expect(again.status).toBe(201);
    // a new account cannot take the public key of one out of memory
    await until("the accounts left memory again", () => mock.store.accountLoads.unloads >= 4);
    const taken = await fetch(`${mock.url}/_mock/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ publicKey: accounts[1]!.publicKey, secretKey: "sk_other_secret_0123456789" }),
    });
    expect(taken.status).toBe(400);
    // the boleto page of an account out of memory is served
    const boletoId = (seen.filter((s) => s.keys === accounts[2])[1]!.body as { id: string }).id;
    expect((await fetch(`${mock.url}/_mock/boleto/${boletoId}.pdf`)).status).toBe(200);
  });

  it("a reset reads no records of an account out of memory, and a refused reset leaves it whole", async () => {
    const store = await STORES[kind]();
    let mock = await start(store);
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const a = await control().createAccount({ balance: 10_000 });
    const payin = await (await api(mock, a).post("/payin", pixPayin({ referenceId: ref("old") }))).json();
    const payout = await api(mock, a).post("/payout", payoutBody({ amount: 2_000, referenceId: "reused" }));
    expect(payout.status).toBe(201);
    await stop(mock);

    mock = await start(store);
    // a reset with a body is refused before it acts: the account, read without its records for it, goes
    const refused = await fetch(`${mock.url}/_mock/accounts/${a.accountId}/reset`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ everything: true }),
    });
    expect(refused.status).toBe(400);
    expect(mock.store.accountLoads).toMatchObject({ loads: 1, unloads: 1 });
    // the reset, on the account out of memory again: the account it leaves is whole (it has no records)
    await control().resetAccount(a.accountId);
    expect(mock.store.accountLoads).toMatchObject({ loads: 2, unloads: 1 });
    expect((await api(mock, a).get(`/payin/${payin.id}`)).status).toBe(404);
    expect((await control().getAccount(a.accountId)).balance.available).toBe(10_000);
    const again = await api(mock, a).post("/payout", payoutBody({ amount: 2_000, referenceId: "reused" }));
    expect(again.status).toBe(201);
    expect(mock.store.accountLoads).toMatchObject({ loads: 2, unloads: 1 });
    await stop(mock);
    // what the reset left is what the store holds
    mock = await start(store);
    expect((await api(mock, a).get(`/payin/${payin.id}`)).status).toBe(404);
    expect((await control().getAccount(a.accountId)).balance.available).toBe(8_000);
  });

  it("an account read back holds its active records and reads the others when named: every answer is as before", async () => {
    const store = await STORES[kind]();
    let mock = await start(store);
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const hooks = await receiver();
    hooks.answer(200);
    const a = await control().createAccount({ balance: 100_000 });
    const client = () => api(mock, a);
    const paid = await (
      await client().post("/payin", pixPayin({ referenceId: ref("paid"), webhookUrl: hooks.url }))
    ).json();
    await control().payPayin(paid.id, { awaitWebhooks: true });
    const pending = await (
      await client().post("/payin", boletoPayin({ referenceId: ref("pending") }))
    ).json();
    const done = await (
      await client().post("/payout", payoutBody({ amount: 1_000, referenceId: "done" }))
    ).json();
    while ((await control().advancePayout(done.id)).status !== "COMPLETED");
    const waiting = await (
      await client().post("/payout", payoutBody({ amount: 500, referenceId: "waiting" }))
    ).json();
    const delivery = (await control().webhooks(a.accountId))[0]!;
    // what each request answers before the restart, then after it (each on a fresh process, so that
    // each one is the first to name what it reads)
    const requests: [string, () => Promise<Response>][] = [
      ["a paid payin", () => client().get(`/payin/${paid.id}`)],
      ["a pending boleto", () => client().get(`/payin/${pending.id}`)],
      ["a payout by referenceId", () => client().get("/payout?referenceId=done")],
      [
        "a repeated referenceId",
        () => client().post("/payout", payoutBody({ amount: 1_000, referenceId: "done" })),
      ],
      ["the payout list", () => client().get("/payout?limit=10")],
      ["the boleto page", () => fetch(`${mock.url}/_mock/boleto/${pending.id}.pdf`)],
      [
        "the control payout list",
        () =>
          fetch(`${mock.url}/_mock/payouts?accountId=${a.accountId}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          }),
      ],
      [
        "the delivery log",
        () =>
          fetch(`${mock.url}/_mock/webhooks?accountId=${a.accountId}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          }),
      ],
    ];
    const before: unknown[] = [];
    for (const [, send] of requests) {
      const response = await send();
      before.push([
        response.status,
        response.headers.get("content-type")?.includes("json")
          ? await response.json()
          : (await response.arrayBuffer()).byteLength,
      ]);
    }
    // read back after a restart, then out of memory again before each request (the cache holds one
    // record), so that each request is the first to name what it reads
    await stop(mock);
    mock = await start(store, { cacheRecords: 1 });
    for (const [i, [what, send]] of requests.entries()) {
      if (i > 0) await untilAllLeft(mock, `a left memory before ${what}`);
      const response = await send();
      const after = [
        response.status,
        response.headers.get("content-type")?.includes("json")
          ? await response.json()
          : (await response.arrayBuffer()).byteLength,
      ];
      expect(after, what).toEqual(before[i]);
    }
    // named by id once out of memory: a COMPLETED payout is refunded, a delivered webhook sent again
    await untilAllLeft(mock, "a left memory");
    expect((await control().refundPayout(done.id)).status).toBe("REFUNDED");
    await control().redeliverWebhook(delivery.id);
    await until(
      "the redelivery arrived",
      () => hooks.received.filter((r) => r.webhookId === delivery.webhookId).length >= 2,
    );
    // the active payout moves on after a restart too
    expect((await control().advancePayout(waiting.id)).status).not.toBe(waiting.status);
  });

  // It found the race of a request's pins fixed in the loader (an account read in for a request left
  // memory while the same request still waited for another read).
  it("many accounts served at once while idle ones leave memory and come back: nothing lost, nothing twice", async () => {
    const store = await STORES[kind]();
    // Six accounts and four rounds: from the first round on they hold twice the cache, so each later
    // round serves several accounts at once while others leave memory and come back (ten accounts
    // and six rounds took 67 s of a loaded CI run on PGlite).
    const ROUNDS = 4;
    let mock = await start(store, { cacheRecords: 6 });
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const accounts = await Promise.all(
      Array.from({ length: 6 }, () => control().createAccount({ balance: 1_000_000 })),
    );
    const payins = new Map<string, { keys: Keys; paid: boolean }>();
    // each round: every account gets a payin, a payout, a repeated referenceId, a read and a payment
    let unloads = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // between two rounds idle accounts leave memory (counted from the start of the round before,
      // as the pass may run before this line): the next round reads them back
      if (round > 0) await untilLeft(mock, unloads, "idle accounts left memory");
      unloads = mock.store.accountLoads.unloads;
      await Promise.all(
        accounts.map(async (keys, n) => {
          const client = api(mock, keys);
          const payin = await (
            await client.post("/payin", pixPayin({ referenceId: ref(`r${round}`) }))
          ).json();
          payins.set(payin.id, { keys, paid: false });
          const reference = `round-${round}-account-${n}`;
          const payout = await client.post(
            "/payout",
            payoutBody({ amount: 1_000 + round, referenceId: reference }),
          );
          expect(payout.status).toBe(201);
          // an older referenceId again: read from the store when the account left memory meanwhile
          if (round > 0) {
            const again = await client.post(
              "/payout",
              payoutBody({ amount: 1_000, referenceId: `round-${round - 1}-account-${n}` }),
            );
            expect(again.status).toBe(400);
          }
          if ((round + n) % 2 === 0) {
            await control().payPayin(payin.id);
            payins.set(payin.id, { keys, paid: true });
          }
          expect((await client.get(`/payin/${payin.id}`)).status).toBe(200);
        }),
      );
    }
    expect(mock.store.accountLoads.unloads).toBeGreaterThan(0);
    // what every account answers now is what the store holds: the same after a restart
    const answers = async () =>
      Promise.all(
        accounts.map(async (keys) => ({
          payouts: await (await api(mock, keys).get("/payout?limit=100")).json(),
          account: await control().getAccount(keys.accountId),
        })),
      );
    const live = await answers();
    // one payout per round and account, none twice
    for (const { payouts } of live) expect(payouts.meta.total).toBe(ROUNDS);
    for (const [id, { keys, paid }] of payins) {
      const status = (await (await api(mock, keys).get(`/payin/${id}`)).json()).status;
      expect(status).toBe(paid ? "APPROVED" : "PENDING");
    }
    await stop(mock);
    mock = await start(store);
    expect(await answers()).toEqual(live);
  });

  it("retention removes an account out of memory in the store alone, and its keys stop working", async () => {
    const store = await STORES[kind]();
    let mock = await start(store);
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const a = await control().createAccount();
    await stop(mock);
    // a new process with a short retention: a is never read in, and goes; kept, made now, is used meanwhile
    mock = await start(store, { retention: "4s" });
    const kept = await control().createAccount();
    await until(
      "a was removed",
      async () => {
        expect((await api(mock, kept).get("/payout?limit=1")).status).toBe(200);
        return !(await control().accounts()).some((x) => x.accountId === a.accountId);
      },
      60_000,
    );
    expect((await api(mock, a).get("/payout?limit=1")).status).toBe(401);
    await stop(mock);
    mock = await start(store);
    const left = (await control().accounts()).map((x) => x.accountId);
    expect(left).toContain(kept.accountId);
    expect(left).not.toContain(a.accountId);
  });

  it("refuses a cacheRecords that is not a whole number of at least 1", async () => {
    const store = await STORES[kind]();
    for (const cacheRecords of [0, -1, 1.5, Number.NaN])
      await expect(start(store, { cacheRecords })).rejects.toThrow(/cacheRecords must be a whole number/);
  });

  it("a store the previous version saved: accounts with work to come are read in, and their work runs", async () => {
    const store = await STORES[kind]();
    let mock = await start(store);
    const control = () => createHttpControl({ url: mock.url, adminToken: ADMIN });
    const hooks = await receiver();
    hooks.answer(200);
    const a = await control().createAccount();
    await api(mock, a).post("/payin", pixPayin({ referenceId: ref("before"), webhookUrl: hooks.url }));
    await stop(mock);
    // the store as schema 4 left it: no due times
    const db = await sqlOf(store);
    await db.exec(`
      DROP INDEX paykit_accounts_due; DROP INDEX paykit_payins_by_three_ds; DROP INDEX paykit_payins_active;
      DROP INDEX paykit_payouts_active; DROP INDEX paykit_deliveries_pending;
      ALTER TABLE paykit_accounts DROP COLUMN next_due_ms;
      ALTER TABLE paykit_accounts DROP COLUMN version; ALTER TABLE paykit_sandbox DROP COLUMN version;
      ALTER TABLE paykit_accounts DROP COLUMN trimmed_version; ALTER TABLE paykit_payins DROP COLUMN version;
      ALTER TABLE paykit_payouts DROP COLUMN version; ALTER TABLE paykit_deliveries DROP COLUMN version;
      DELETE FROM paykit_schema_migrations WHERE version >= 5;`);
    await db.close();

    mock = await start(store);
    // nothing names the account: the migration made it due, the process reads it in, the expiry runs
    await control().setClock({ advanceMs: 2 * 60 * 60 * 1000 });
    await until("the expiry's webhook arrived", () => hooks.received.length >= 1);
    expect(mock.store.accountLoads.loads).toBeGreaterThanOrEqual(1);
  });

  it("work falls due while its account is out of memory: the expiry runs, the webhook is retried under its webhook-id", async () => {
    const store = await STORES[kind]();
    const mock = await start(store, { cacheRecords: 1 });
    const control = createHttpControl({ url: mock.url, adminToken: ADMIN });
    const hooks = await receiver();
    const a = await control.createAccount();
    const payin = await (
      await api(mock, a).post("/payin", pixPayin({ referenceId: ref("due"), webhookUrl: hooks.url }))
    ).json();
    // one more record than the cache holds: a leaves memory once idle (its expiry is an hour away)
    await api(mock, a).post("/payin", pixPayin({ referenceId: ref("more") }));
    await until("a left memory", () => mock.store.accountLoads.unloads >= 1);
    const loads = mock.store.accountLoads.loads;

    // the sandbox clock passes the PIX expiry: nothing names a, the store's due time brings it back
    await control.setClock({ advanceMs: 2 * 60 * 60 * 1000 });
    await until("the expiry's webhook was attempted", () => hooks.received.length >= 1);
    expect(mock.store.accountLoads.loads).toBeGreaterThan(loads);
    expect(hooks.received[0]).toMatchObject({ answered: 500 });
    const webhookId = hooks.received[0]!.webhookId;

    // the retry is minutes away on a's clock: a leaves memory again, and the retry still comes
    await until("a left memory again", () => mock.store.accountLoads.unloads >= 2, 90_000);
    hooks.answer(200);
    await control.setClock({ advanceMs: 60 * 60 * 1000 });
    await until("the retry was delivered", () => hooks.received.some((r) => r.answered === 200));
    expect(new Set(hooks.received.map((r) => r.webhookId))).toEqual(new Set([webhookId]));
    const deliveries = await control.webhooks(a.accountId);
    expect(deliveries.map((d) => ({ id: d.webhookId, state: d.state, attempts: d.attempts.length }))).toEqual(
      [{ id: webhookId, state: "delivered", attempts: hooks.received.length }],
    );
    expect((await (await api(mock, a).get(`/payin/${payin.id}`)).json()).status).toBe("EXPIRED");
  });
});
