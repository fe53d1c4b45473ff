// What a shared sandbox's processes agree on, and what each decides alone (docs/testing.md, "What one
// process decides alone"): two mocks on one PostgreSQL database. A fault armed through one process
// is met on the other and its uses are counted once, boleto numbers never repeat across processes,
// and the rate limit, switched on through either, counts each process's requests on its own. A
// restart keeps what was stored: armed faults and the rate limit's setting. The retention limit
// (--max-records) holds with both creating at once.
import { afterEach, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../../src/index.js";
import { basic, cardPayin, pixPayin } from "../fixtures.js";
import { ADMIN_TOKEN, twoMockServers } from "./processes.js";

const servers: MockServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** `count` payins of the given bodies, alternately through `a` and `b`, all at once. */
const payinsAcross = (a: MockServer, b: MockServer, count: number, body: (i: number) => unknown) =>
  Promise.all(
    Array.from({ length: count }, (_, i) => {
      const mock = i % 2 === 0 ? a : b;
      return fetch(`${mock.url}/payin`, {
        method: "POST",
        headers: { authorization: basic(mock.account), "content-type": "application/json" },
        body: JSON.stringify(body(i)),
      });
    }),
  );

const listPayouts = (mock: MockServer) =>
  fetch(`${mock.url}/payout?limit=1`, { headers: { authorization: basic(mock.account) } }).then(
    (r) => r.status,
  );

it("a fault armed through one process is met on the other, each use once", async () => {
  const { a, b } = await twoMockServers("shared_faults", servers);
  await a.control.addFault({ method: "GET", path: "/payout", status: 503, times: 3 });
  // three uses, taken on whichever process the requests reach, then none
  expect([await listPayouts(b), await listPayouts(a), await listPayouts(b), await listPayouts(b)]).toEqual([
    503, 503, 503, 200,
  ]);
  expect(await a.control.faults()).toEqual([]);
  expect(await b.control.faults()).toEqual([]);
});

it("boleto numbers never repeat across processes", async () => {
  const { a, b } = await twoMockServers("shared_boletos", servers);
  const answers = await payinsAcross(a, b, 20, (i) => ({
    ...pixPayin({ referenceId: `boleto-${i}` }),
    paymentMethod: "BOLETO",
  }));
  const barcodes = await Promise.all(
    answers.map(async (res) => {
      expect(res.status).toBe(201);
      return ((await res.json()) as { boleto: { barcode: string } }).boleto.barcode;
    }),
  );
  expect(new Set(barcodes).size).toBe(barcodes.length);
});

it("the rate limit, switched on through one process, counts each process's requests on its own", async () => {
  const { a, b } = await twoMockServers("shared_rate", servers);
  await a.control.setRateLimit({ limit: 2, windowMs: 60_000 });
  expect([await listPayouts(a), await listPayouts(a), await listPayouts(a)]).toEqual([200, 200, 429]);
  // the setting is the sandbox's; the other process's bucket is its own
  expect([await listPayouts(b), await listPayouts(b), await listPayouts(b)]).toEqual([200, 200, 429]);
  await b.control.setRateLimit(null);
  expect(await listPayouts(a)).toBe(200);
});

it("a process started again on the store finds the faults armed and the rate limit set before", async () => {
  const { a, b, url } = await twoMockServers("shared_restart", servers);
  await a.control.addFault({ method: "GET", path: "/payout", status: 503, times: 1 });
  await a.control.setRateLimit({ limit: 5, windowMs: 60_000 });
  await a.close();
  await b.close();
  servers.splice(0);
  const again = await createMockServer({
    adminToken: ADMIN_TOKEN,
    autoAdvance: false,
    store: { url },
    defaultAccount: a.account,
  });
  servers.push(again);
  expect((await again.control.faults()).map((f) => f.status)).toEqual([503]);
  expect(await listPayouts(again)).toBe(503);
  // (the request the fault refused was not counted: a fault answers before the limit is looked at)
  const limited = [];
  for (let i = 0; i < 6; i++) limited.push(await listPayouts(again));
  expect(limited).toEqual([200, 200, 200, 200, 200, 429]);
});

it("--max-records holds with two processes creating at once: the account keeps exactly the limit", async () => {
  const { a, b } = await twoMockServers("shared_max_records", servers, { maxRecords: 20 });
  const held = async () => {
    const { balance } = await b.control.getAccount(b.account.accountId);
    return balance.available + balance.reserved;
  };
  const before = await held();
  // approved cards: final payins, which the limit may drop
  const answers = await payinsAcross(a, b, 80, () => cardPayin());
  const statuses = await Promise.all(
    answers.map(async (res) => {
      await res.arrayBuffer();
      return res.status;
    }),
  );
  // Each create takes the account's lock, so the 80 take turns; beside a busy core one that waited its
  // turn past the database's idle limit three times answers 503 "nothing of it is stored"
  // (docs/testing.md, "A stopped or killed process"), and nothing else.
  expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
  const created = statuses.filter((status) => status === 201).length;
  expect(created).toBeGreaterThan(20);
  for (const mock of [a, b]) expect(await mock.control.payins(mock.account.accountId)).toHaveLength(20);
  // the balance keeps the dropped payins' money: every approval credited, whichever process made it
  const [kept] = await a.control.payins(a.account.accountId);
  expect(kept?.netAmount).toBeGreaterThan(0);
  expect((await held()) - before).toBe(created * (kept?.netAmount ?? 0));
});
