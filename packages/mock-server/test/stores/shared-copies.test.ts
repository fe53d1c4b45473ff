// What one process of a shared PostgreSQL sandbox holds in memory is a cache of the store: a copy of an
// account that another process removed (here by a reset of the whole sandbox) must not be listed, nor
// served, by the process that still holds it.
import { afterEach, describe, expect, it } from "vitest";
import type { MockServer } from "../../src/index.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, pixPayin } from "../fixtures.js";
import { twoMockServers } from "./processes.js";

const servers: MockServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

let url = "";
async function twoProcesses(): Promise<[MockServer, MockServer]> {
  const pair = await twoMockServers("copies", servers);
  url = pair.url;
  return [pair.a, pair.b];
}

const listed = async (server: MockServer) => {
  const ids: string[] = [];
  for await (const account of server.control.listAll("accounts")) ids.push(account.accountId);
  return ids;
};

describe("copies of accounts another process removed", () => {
  it("are neither listed nor served once a reset on another process removed them", async () => {
    const [a, b] = await twoProcesses();
    const { accountId } = await b.control.createAccount({ balance: 1_000 });
    // a reads the account in: its copy stays in memory
    expect((await a.control.accountClock(accountId)).now).toEqual(expect.any(String));
    expect(await listed(a)).toContain(accountId);

    await b.control.reset();

    expect(await listed(a)).not.toContain(accountId);
    await expect(a.control.accountClock(accountId)).rejects.toMatchObject({ status: 404 });
    expect(await listed(b)).toEqual(await listed(a));
  });

  it("have their rows deleted right after the reset, a batch at a time, not at the next retention sweep", async () => {
    const [a, b] = await twoProcesses();
    const keys = await a.control.createAccount({ balance: 1_000 });
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${a.url}/payin`, {
        method: "POST",
        headers: { authorization: basic(keys), "content-type": "application/json" },
        body: JSON.stringify(pixPayin()),
      });
      expect(res.status).toBe(201);
    }
    await b.control.resetAccount(keys.accountId);
    const db = await openPostgres(url, { max: 1 });
    const left = async () =>
      (
        await db.query<{ n: number }>("SELECT count(*)::int AS n FROM paykit_payins WHERE account_id = $1", [
          keys.accountId,
        ])
      ).rows[0]?.n;
    try {
      await expect.poll(left, { timeout: 10_000 }).toBe(0);
    } finally {
      await db.close();
    }
  });
});
