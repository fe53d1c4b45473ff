// Each account's own test clock (issue 15, isolation for teams): `GET`/`POST /_mock/accounts/{id}/clock`
// take the shapes of `/_mock/clock`; an account's clock is the sandbox clock plus its own offset, and
// its expiries, night limit and webhook retries run on it, while other accounts' do not move. Moving the
// sandbox clock moves every account. Over every transport (node:http reaches the control API over HTTP).
import { beforeAll, describe, expect, it } from "vitest";
import { samplePayin, samplePayout } from "../src/index.js";
import { warmStore } from "./durable-harness.js";
import { basic, type Harness, startHarness, TRANSPORTS_AND_STORES } from "./fixtures.js";

const HOUR = 3_600_000;

async function call(
  mock: Harness,
  keys: { publicKey: string; secretKey: string },
  path: string,
  body?: unknown,
) {
  const res = await mock.send(path, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: basic(keys),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res === "dropped") throw new Error("dropped");
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(TRANSPORTS_AND_STORES)("an account's own clock, over %s", (transport) => {
  beforeAll(() => warmStore(transport), 120_000);
  it("expires only that account's payins; the sandbox clock moves everyone", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const a = await mock.control.createAccount();
      const b = await mock.control.createAccount();
      const payinA = (await call(mock, a, "/payin", samplePayin("PIX"))).body.id as string;
      const payinB = (await call(mock, b, "/payin", samplePayin("PIX"))).body.id as string;
      const sandbox = Date.parse((await mock.control.clock()).now);

      const moved = await mock.control.setAccountClock(a.accountId, { advanceMs: 2 * HOUR });
      expect(Date.parse(moved.now) - sandbox).toBeGreaterThanOrEqual(2 * HOUR);
      expect(Date.parse(moved.now) - sandbox).toBeLessThan(2 * HOUR + 60_000);
      expect((await call(mock, a, `/payin/${payinA}`)).body.status).toBe("EXPIRED");
      expect((await call(mock, b, `/payin/${payinB}`)).body.status).toBe("PENDING");
      const bClock = Date.parse((await mock.control.accountClock(b.accountId)).now);
      expect(bClock - sandbox).toBeLessThan(60_000);

      await mock.control.setClock({ advanceMs: 2 * HOUR }); // the sandbox: everyone
      expect((await call(mock, b, `/payin/${payinB}`)).body.status).toBe("EXPIRED");
      const aClock = Date.parse((await mock.control.accountClock(a.accountId)).now);
      expect(aClock - sandbox).toBeGreaterThanOrEqual(4 * HOUR);
    } finally {
      await mock.close();
    }
  });

  it("a clock set back: records carry the account's time, and expiries follow it", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const a = await mock.control.createAccount();
      await mock.control.setAccountClock(a.accountId, { now: "2030-01-15T12:00:00Z" });
      const payin = await call(mock, a, "/payin", samplePayin("PIX"));
      expect(String(payin.body.createdAt).slice(0, 16)).toBe("2030-01-15T12:00");
      await mock.control.setAccountClock(a.accountId, { now: "2030-01-15T12:30:00Z" });
      expect((await call(mock, a, `/payin/${payin.body.id}`)).body.status).toBe("PENDING");
      await mock.control.setAccountClock(a.accountId, { advanceMs: HOUR });
      expect((await call(mock, a, `/payin/${payin.body.id}`)).body.status).toBe("EXPIRED");
    } finally {
      await mock.close();
    }
  });

  it("the night limit reads the account's clock", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const night = await mock.control.createAccount({ balance: 1_000_000 });
      const day = await mock.control.createAccount({ balance: 1_000_000 });
      // 23:00 in São Paulo (UTC-3) for one account, 14:00 for the other
      await mock.control.setAccountClock(night.accountId, { now: "2030-01-16T02:00:00Z" });
      await mock.control.setAccountClock(day.accountId, { now: "2030-01-15T17:00:00Z" });
      const payout = (ref: string) => samplePayout({ amount: 150_000, referenceId: ref });
      const refused = await call(mock, night, "/payout", payout("night-1"));
      expect(refused).toMatchObject({ status: 400, body: { code: "BEYOND_LIMITS" } });
      expect((await call(mock, day, "/payout", payout("day-1"))).status).toBe(201);
    } finally {
      await mock.close();
    }
  });

  it("webhook retries run on the account's clock", async () => {
    const mock = await startHarness(transport, {
      autoAdvance: false,
      fetch: async () => new Response(null, { status: 500 }),
    });
    try {
      const a = await mock.control.createAccount();
      const b = await mock.control.createAccount();
      for (const keys of [a, b]) {
        const payin = await call(
          mock,
          keys,
          "/payin",
          samplePayin("PIX", { webhookUrl: "https://hook.test/x" }),
        );
        await mock.control.payPayin(payin.body.id as string);
      }
      await mock.control.flushWebhooks();
      const attempts = async (accountId: string) =>
        (await mock.control.webhooks(accountId)).map((d) => d.attempts.length);
      expect(await attempts(a.accountId)).toEqual([1]);
      await mock.control.setAccountClock(a.accountId, { advanceMs: 10_000 }); // past the 5 s retry
      await mock.control.flushWebhooks();
      expect(await attempts(a.accountId)).toEqual([2]);
      expect(await attempts(b.accountId)).toEqual([1]);
      const [delivery] = await mock.control.webhooks(a.accountId);
      const times = delivery?.attempts.map((x) => Date.parse(x.at)) ?? [];
      expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(5_000);
    } finally {
      await mock.close();
    }
  });

  it("a reset puts the account back on the sandbox clock; an unknown account is 404, a bad body 400", async () => {
    const mock = await startHarness(transport, { autoAdvance: false });
    try {
      const a = await mock.control.createAccount();
      await mock.control.setAccountClock(a.accountId, { advanceMs: 48 * HOUR });
      await mock.control.resetAccount(a.accountId);
      const offset =
        Date.parse((await mock.control.accountClock(a.accountId)).now) -
        Date.parse((await mock.control.clock()).now);
      expect(Math.abs(offset)).toBeLessThan(60_000);
      await expect(mock.control.accountClock("acct_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(
        mock.control.setAccountClock(a.accountId, { advanceMs: -5 } as never),
      ).rejects.toMatchObject({ code: "INVALID_DATA" });
    } finally {
      await mock.close();
    }
  });
});
