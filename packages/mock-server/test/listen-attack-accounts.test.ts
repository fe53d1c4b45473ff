// `paykit-mock listen` and who may take which deliveries, on a shared sandbox (account keys authorize
// their own account's calls): two listeners of one account started within milliseconds leave exactly
// one taking the deliveries and the other stopped, saying so; a listener of account A sees none of
// B's attempts, and acks naming B's attempts, sent by A with A's keys (on A's account or on B's),
// settle none of them: B's attempt stays open until B answers it.
import { afterEach, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../src/index.js";
import { basic } from "./fixtures.js";
import { cleanups, cliListener, laptopReceiver, logOf, merchant } from "./listen-attack-harness.js";

const ADMIN_TOKEN = "admin-token-for-listen-attacks";

const started = cleanups();
afterEach(() => started.run());

async function sharedSandbox(): Promise<MockServer> {
  const mock = await createMockServer({ autoAdvance: false, sharedSandbox: true, adminToken: ADMIN_TOKEN });
  started.add(() => mock.close());
  return mock;
}

type Keys = { publicKey: string; secretKey: string };

/** One raw poll of `POST /_mock/accounts/{id}/listen` with an account's keys. */
async function poll(url: string, keys: Keys, accountId: string, body: object) {
  const res = await fetch(`${url}/_mock/accounts/${accountId}/listen`, {
    method: "POST",
    headers: { authorization: basic(keys), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      code?: string;
      attempts?: { attemptId: string; webhookId: string; resourceId: string }[];
      takenOver?: boolean;
    },
  };
}

it("leaves one listener of two started within milliseconds; the other exits 1, and none is lost", async () => {
  const mock = await sharedSandbox();
  const keys = await mock.control.createAccount({});
  const receivers = [await laptopReceiver(), await laptopReceiver()];
  for (const r of receivers) started.add(r.close);
  const both = await Promise.all(receivers.map((r) => cliListener(mock.url, keys, r.url)));
  for (const l of both) started.add(l.kill);

  // the one whose first poll came first is taken over, and says so
  const loser = await Promise.race(both.map((l, n) => l.exited.then((exit) => ({ n, exit }))));
  expect(loser.exit.code).toBe(1);
  expect(both[loser.n]!.stderr()).toMatch(/took over/);
  const winner = 1 - loser.n;
  expect(both[winner]!.child.exitCode).toBeNull();

  const shop = merchant(mock.url, keys);
  const payins = await Promise.all(Array.from({ length: 10 }, () => shop.payin()));
  await Promise.all(payins.map((id) => mock.control.payPayin(id, { awaitWebhooks: true })));
  const log = await logOf(mock.control, keys.accountId);
  expect(log.map((d) => [d.state, d.attempts.map((a) => a.statusCode)])).toEqual(
    payins.map(() => ["delivered", [200]]),
  );
  expect(new Set(receivers[winner]!.arrivals.map((a) => a.webhookId))).toEqual(
    new Set(log.map((d) => d.webhookId)),
  );
  expect(receivers[loser.n]!.arrivals).toEqual([]);
  expect(both[winner]!.child.exitCode).toBeNull();
}, 60_000);

it("never shows account A's listener B's attempts, and A's acks of B's attempt ids settle none", async () => {
  const mock = await sharedSandbox();
  const a = await mock.control.createAccount({});
  const b = await mock.control.createAccount({});
  expect((await poll(mock.url, b, b.accountId, { listener: "lst_bbbbbbbb", waitMs: 0 })).status).toBe(200);
  expect((await poll(mock.url, a, a.accountId, { listener: "lst_aaaaaaaa", waitMs: 0 })).status).toBe(200);

  const theirs = await merchant(mock.url, b).payin();
  await mock.control.payPayin(theirs);
  const handed = await poll(mock.url, b, b.accountId, { listener: "lst_bbbbbbbb", waitMs: 5_000 });
  expect(handed.body.attempts?.map((x) => x.resourceId)).toEqual([theirs]);
  const target = handed.body.attempts![0]!;

  // A, with A's own keys: its own account's polls acking B's attempt (and guesses at its id) get
  // nothing of B's; polls on B's account are refused as if it did not exist
  const forged = [
    target.attemptId,
    ` ${target.attemptId}`,
    target.attemptId.toUpperCase(),
    ...Array.from({ length: 20 }, (_, n) => `la_${n}_${target.webhookId}`),
  ].map((attemptId) => ({ attemptId, statusCode: 200, error: null }));
  const own = await poll(mock.url, a, a.accountId, { listener: "lst_aaaaaaaa", acks: forged, waitMs: 0 });
  expect(own).toEqual({ status: 200, body: { attempts: [], takenOver: false } });
  for (const listener of ["lst_aaaaaaaa", "lst_bbbbbbbb", "lst_forged01"]) {
    const there = await poll(mock.url, a, b.accountId, { listener, acks: forged, waitMs: 0 });
    expect(there.status).toBe(404);
    expect(there.body.code).toBe("NOT_FOUND");
  }
  // B's listener's own id, used by A on A's account, takes nothing of B's
  await poll(mock.url, a, a.accountId, { listener: "lst_bbbbbbbb", acks: forged, waitMs: 0 });

  const [open] = await logOf(mock.control, b.accountId);
  expect(open?.state).toBe("pending");
  expect(open?.attempts).toEqual([]);
  // B's listener is still B's, its attempt still open, and B's own answer is the one recorded
  const answered = await poll(mock.url, b, b.accountId, {
    listener: "lst_bbbbbbbb",
    acks: [{ attemptId: target.attemptId, statusCode: 503, error: null }],
    waitMs: 0,
  });
  expect(answered.body.takenOver).toBe(false);
  await mock.control.flushWebhooks(b.accountId);
  const [settled] = await logOf(mock.control, b.accountId);
  expect(settled?.attempts.map((x) => x.statusCode)).toEqual([503]);
  expect(await logOf(mock.control, a.accountId)).toEqual([]);
});
