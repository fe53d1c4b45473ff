// A control call that reads an account bare (its settings and balance, without its records) and a
// request that needs the same account whole, sent together to a process that holds neither: before
// they were kept apart, the second joined the first's transaction and waited for the bare hold's
// release, which comes after the commit that waited for it (restart.test.ts hung on it, 1 run in 8
// beside busy.mjs).
import { afterEach, expect, it } from "vitest";
import { basic, payoutBody } from "../fixtures.js";
import { ADMIN, closeSharedEngines, newDatabase, sharedEngine } from "./processes.js";

afterEach(closeSharedEngines);

async function process(url: string) {
  return (await sharedEngine(url)).engine;
}

/** An answer, or a failure naming the request after 15 s (rather than the test's own timeout). */
function within(what: string, answer: Promise<Response>): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: no answer after 15 s`)), 15_000);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

it("answers a bare read of an account and a request that reads it whole, sent together", async () => {
  const url = await newDatabase("bare");
  const first = await process(url);
  const created = await first.handle(
    new Request("http://mock.test/_mock/accounts", {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ balance: 100_000 }),
    }),
  );
  const keys = (await created.json()) as { accountId: string; publicKey: string; secretKey: string };
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  for (let i = 0; i < 3; i++) {
    const res = await first.handle(
      new Request("http://mock.test/payout", {
        method: "POST",
        headers,
        body: JSON.stringify(payoutBody({ referenceId: `bare-${i}`, amount: 1_000 })),
      }),
    );
    expect(res.status).toBe(201);
  }
  for (let round = 0; round < 5; round++) {
    // a process that holds none of the account
    const other = await process(url);
    const [account, payouts] = await Promise.all([
      within(
        "GET /_mock/accounts/:id",
        other.handle(new Request(`http://mock.test/_mock/accounts/${keys.accountId}`, { headers: ADMIN })),
      ),
      within("GET /payout", other.handle(new Request("http://mock.test/payout", { headers }))),
    ]);
    expect(account.status).toBe(200);
    expect(((await account.json()) as { accountId: string }).accountId).toBe(keys.accountId);
    expect(payouts.status).toBe(200);
    expect(((await payouts.json()) as { data: unknown[] }).data).toHaveLength(3);
  }
}, 60_000);
