// `paykit-mock listen` on the durable stores, with the sandbox itself dying under it:
// - a mock with `--data-dir` (PGlite) closed mid-stream and started again on the same directory and
//   port: the listener waits, comes back, and what was pending is sent to it;
// - a team sandbox of two `paykit-mock` processes on PostgreSQL, the listener (a real `paykit-mock
//   listen` process) polling one of them, the requests going to both, and the other killed -9 while
//   payins are paid and payouts move: the listener carries on, and every event of every payin and
//   payout the sandbox holds at the end reaches the laptop, under one webhook-id, each payout's events
//   in order.
// (The in-memory mock is what every other listen-attack file runs on.)
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { removeOnExit } from "../../../scripts/processes.mjs";
import { createHttpControl } from "../src/control/http-client.js";
import { createMockServer, type MockControl } from "../src/index.js";
import { basic, payoutBody, pixPayin, ref } from "./fixtures.js";
import {
  cleanups,
  cliListener,
  expectInOrder,
  expectNoneLost,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
  NOWHERE,
  settle,
  sleep,
  until,
} from "./listen-attack-harness.js";
import { ADMIN_TOKEN, killAll, newDatabase, startMockProcess } from "./stores/processes.js";

const KEYS = { publicKey: "pk_test_listenattack1", secretKey: "sk_test_listenattack1" };

const started = cleanups();
afterEach(async () => {
  await started.run();
  killAll();
});

it("goes on across a --data-dir mock closed mid-stream and started again, and loses nothing", async () => {
  const dataDir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-listen-attack-")));
  const open = () => createMockServer({ autoAdvance: false, store: { dataDir }, port });
  let port = 0;
  let mock = await open();
  port = Number(new URL(mock.url).port);
  let current = mock;
  started.add(() => current.close());
  const keys = await mock.control.createAccount({ balance: 10_000_000 });
  const receiver = await laptopReceiver();
  started.add(receiver.close);
  const listener = inProcessListener({ url: mock.url, keys, forwardTo: receiver.url });
  started.add(listener.stop);
  await listener.ready;

  const shop = () => merchant(current.url, keys);
  const payins: string[] = [];
  const payouts: string[] = [];
  const round = async (control: MockControl) => {
    const [payin, payout] = await Promise.all([shop().payin(), shop().payout()]);
    payins.push(payin);
    payouts.push(payout);
    await Promise.all([control.payPayin(payin), control.advancePayout(payout)]);
    await control.advancePayout(payout);
  };
  for (let n = 0; n < 3; n++) await round(mock.control);
  // closed while deliveries are on their way to the listener, and started again on the same directory
  await round(mock.control);
  await mock.close();
  await sleep(1_500);
  mock = await open();
  current = mock;
  for (let n = 0; n < 3; n++) await round(mock.control);

  // the sandbox still holds an event for each change it holds: none was dropped by the stop
  const held = (await logOf(mock.control, keys.accountId)).map((d) => `${d.resourceId} ${d.status}`);
  expect(held.sort()).toEqual(
    [
      ...payins.map((id) => `${id} APPROVED`),
      ...payouts.flatMap((id) => [`${id} PROCESSING`, `${id} COMPLETED`]),
    ].sort(),
  );
  const log = await settle(mock.control, keys.accountId, 7 * 3);
  expectNoneLost(log, receiver.arrivals);
  for (const id of payouts) expectInOrder(receiver.arrivals, id, ["PROCESSING", "COMPLETED"]);
  expect(listener.connection.some((c) => c.startsWith("lost"))).toBe(true);
  expect(listener.connection.some((c) => c.startsWith("back"))).toBe(true);
}, 90_000);

it("carries on when another process of a PostgreSQL sandbox, serving the same account, is killed -9", async () => {
  const store = await newDatabase("listen_attack");
  const args = ["--store", store, "--shared", "--manual"];
  const victim = await startMockProcess(KEYS, args);
  const survivor = await startMockProcess(KEYS, args);
  const admin = createHttpControl({ url: survivor.url, adminToken: ADMIN_TOKEN });
  const accountId = (await admin.accounts()).find((a) => a.publicKey === KEYS.publicKey)!.accountId;
  const receiver = await laptopReceiver();
  started.add(receiver.close);
  const listener = await cliListener(survivor.url, KEYS, receiver.url);
  started.add(listener.kill);

  // Rounds through either process (the victim while it lives): a payin paid, a payout to COMPLETED.
  // A request cut by the kill may or may not have taken effect; what the sandbox holds at the end is
  // what must reach the laptop, through the process the listener polls.
  let rounds = 0;
  let killed = false;
  const post = (path: string, body: unknown) =>
    fetch(`${!killed && rounds % 2 === 0 ? victim.url : survivor.url}${path}`, {
      method: "POST",
      headers: { authorization: basic(KEYS), "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (res) => (res.status === 201 ? ((await res.json()) as { id: string }).id : null));
  const round = async () => {
    try {
      const payin = await post("/payin", pixPayin({ webhookUrl: NOWHERE }));
      const payout = await post("/payout", payoutBody({ referenceId: ref("la"), webhookUrl: NOWHERE }));
      await Promise.all([
        payin && admin.payPayin(payin),
        payout && admin.advancePayout(payout).then(() => admin.advancePayout(payout)),
      ]);
    } catch {
      // cut by the kill
      await sleep(100);
    }
    rounds += 1;
  };
  let stop = false;
  const load = (async () => {
    while (!stop) await round();
  })();
  await until(() => receiver.arrivals.length >= 15, 60_000);
  victim.child.kill("SIGKILL");
  killed = true;
  const arrivedAtKill = receiver.arrivals.length;
  await until(() => receiver.arrivals.length >= arrivedAtKill + 15, 60_000);
  stop = true;
  await load;

  // what the sandbox holds now, with their events. A payin the victim made as it died (its answer
  // lost, so never paid) expires once the clock moves: the hour (and a minute) moved first expires every such one
  // before the count (`settle` moves it again on each of its rounds).
  await admin.setAccountClock(accountId, { advanceMs: 61 * 60_000 });
  const held = await admin.payins(accountId, { limit: 1000 });
  expect(held.every((p) => p.status === "APPROVED" || p.status === "EXPIRED")).toBe(true);
  const payins = held.filter((p) => p.status === "APPROVED");
  const payouts = (await admin.payouts(accountId, { limit: 1000 })).filter((p) => p.status !== "PENDING");
  const expected = held.length + payouts.reduce((sum, p) => sum + (p.status === "COMPLETED" ? 2 : 1), 0);
  const log = await settle(admin, accountId, expected, 90_000);
  expect(log).toHaveLength(expected);
  expectNoneLost(log, receiver.arrivals);
  for (const payin of payins)
    expect(log.some((d) => d.resourceId === payin.id && d.status === "APPROVED")).toBe(true);
  for (const payout of payouts.filter((p) => p.status === "COMPLETED"))
    expectInOrder(receiver.arrivals, payout.id, ["PROCESSING", "COMPLETED"]);
  expect(listener.child.exitCode).toBeNull();
}, 180_000);
