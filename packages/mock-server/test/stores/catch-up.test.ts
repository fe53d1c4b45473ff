// A process of a shared PostgreSQL sandbox that holds an account another process wrote brings its copy
// up to date from the rows that process wrote (docs/testing.md, "The shared sandbox"), and reads the
// account again whole only when it must: a record it holds written again, a reset. Either way it
// answers what the store holds.
import { afterEach, describe, expect, it } from "vitest";
import type { MockServer } from "../../src/index.js";
import { basic, payoutBody, pixPayin, ref } from "../fixtures.js";
import { twoMockServers } from "./processes.js";

const servers: MockServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function twoProcesses(): Promise<[MockServer, MockServer]> {
  const { a, b } = await twoMockServers("catchup", servers);
  return [a, b];
}

async function call<T>(server: MockServer, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: basic(server.account), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

const balanceOf = async (server: MockServer) =>
  (await server.control.getAccount(server.account.accountId)).balance;

describe("a copy another process wrote since it was read", () => {
  it("catches up in place with the payins, payouts and balance that process made", async () => {
    const [a, b] = await twoProcesses();
    const first = await call<{ id: string }>(a, "POST", "/payin", pixPayin());
    const before = a.store.accountLoads;

    // b makes a payin and a payout of the same account; a's copy is one version behind each time
    const theirs = await call<{ id: string }>(b, "POST", "/payin", pixPayin({ amount: 1234 }));
    const referenceId = ref("cu");
    const payout = await call<{ id: string }>(b, "POST", "/payout", payoutBody({ referenceId }));

    // a serves both, and its own, from its copy brought up to date
    expect((await call<{ status: string }>(a, "GET", `/payin/${theirs.id}`)).status).toBe("PENDING");
    expect((await call<{ status: string }>(a, "GET", `/payin/${first.id}`)).status).toBe("PENDING");
    const listed = await call<{ data: { id: string }[] }>(a, "GET", "/payout");
    expect(listed.data.map((p) => p.id)).toContain(payout.id);
    expect(await balanceOf(a)).toEqual(await balanceOf(b));
    // the same referenceId is refused by a: it knows b's payout
    const again = await fetch(`${a.url}/payout`, {
      method: "POST",
      headers: { authorization: basic(a.account), "content-type": "application/json" },
      body: JSON.stringify(payoutBody({ referenceId })),
    });
    expect(again.status).toBe(400);

    const after = a.store.accountLoads;
    expect(after.caughtUp).toBeGreaterThan(before.caughtUp);
    expect(after.readAgain).toBe(before.readAgain);
    expect(after.loads).toBe(before.loads);
  });

  it("takes a payin paid elsewhere in place: its status, the balance, and the event's delivery", async () => {
    const [a, b] = await twoProcesses();
    const webhookUrl = "http://127.0.0.1:9/hook";
    const payin = await call<{ id: string }>(a, "POST", "/payin", pixPayin({ amount: 5000, webhookUrl }));
    const before = a.store.accountLoads;
    await b.control.payPayin(payin.id);
    expect((await call<{ status: string }>(a, "GET", `/payin/${payin.id}`)).status).toBe("APPROVED");
    expect(await balanceOf(a)).toEqual(await balanceOf(b));
    const events = async (server: MockServer) =>
      (await server.control.webhooks(server.account.accountId)).map((d) => `${d.resourceId} ${d.status}`);
    expect(await events(a)).toEqual([`${payin.id} APPROVED`]);
    expect(await events(b)).toEqual([`${payin.id} APPROVED`]);
    // paid once: a second pay through a is refused, as the store's payin is final
    await expect(a.control.payPayin(payin.id)).rejects.toMatchObject({ status: 400 });
    // (the delivery's attempts, made by whichever process claims them, may have a copy read again later)
    expect(a.store.accountLoads.caughtUp).toBeGreaterThan(before.caughtUp);
  });

  it("is read again whole when a payout it holds moved on elsewhere, and answers the store's state", async () => {
    const [a, b] = await twoProcesses();
    const payout = await call<{ id: string }>(a, "POST", "/payout", payoutBody({ referenceId: ref("w") }));
    const before = a.store.accountLoads;
    await b.control.advancePayout(payout.id);
    const listed = await call<{ data: { id: string; status: string }[] }>(a, "GET", "/payout");
    expect(listed.data.find((p) => p.id === payout.id)?.status).toBe("PROCESSING");
    expect(await balanceOf(a)).toEqual(await balanceOf(b));
    expect(a.store.accountLoads.readAgain).toBeGreaterThan(before.readAgain);
  });

  it("is read again whole after a reset of the account elsewhere: nothing of before is served", async () => {
    const [a, b] = await twoProcesses();
    const payin = await call<{ id: string }>(a, "POST", "/payin", pixPayin());
    await b.control.resetAccount(a.account.accountId);
    const res = await fetch(`${a.url}/payin/${payin.id}`, { headers: { authorization: basic(a.account) } });
    expect(res.status).toBe(404);
    expect((await a.control.payins(a.account.accountId)).map((p) => p.id)).toEqual([]);
  });

  it("takes the account's clock moved elsewhere: its own timers run by it", async () => {
    const [a, b] = await twoProcesses();
    const payin = await call<{ id: string }>(a, "POST", "/payin", pixPayin());
    // another payin through b, then the clock an hour and a minute on through b: a's PIX payin expires
    await call(b, "POST", "/payin", pixPayin());
    await b.control.setAccountClock(a.account.accountId, { advanceMs: 61 * 60_000 });
    await expect
      .poll(async () => (await call<{ status: string }>(a, "GET", `/payin/${payin.id}`)).status)
      .toBe("EXPIRED");
    const clockA = Date.parse((await a.control.accountClock(a.account.accountId)).now);
    const clockB = Date.parse((await b.control.accountClock(a.account.accountId)).now);
    expect(Math.abs(clockA - clockB)).toBeLessThan(5_000);
  });
});
