// `paykit-mock listen` and `trigger` on a team sandbox of two processes (one PostgreSQL store), where one
// process alone used to get them right: a second listener for the account on the OTHER process takes the
// deliveries and the first exits 1 saying so; `trigger --url <B>` while the listener polls A reports the
// attempt the listener answered; a control call's `awaitWebhooks` sent to B waits for the attempt handed
// out through A (docs/decisions/sandbox-store.md, "Deliveries are a queue").
import { once } from "node:events";
import { afterEach, expect, it } from "vitest";
import { spawnGroup } from "../../../../scripts/processes.mjs";
import { createHttpControl } from "../../src/control/http-client.js";
import { mockCli } from "../cli-bundle.js";
import { cliListener, laptopReceiver, logOf, merchant } from "../listen-attack-harness.js";
import { ADMIN_TOKEN, killAll, newDatabase, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_listentwoproc1", secretKey: "sk_test_listentwoproc1" };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  killAll();
});

/** Two processes of one shared sandbox on a new database, and an admin control of the first. */
async function twoProcesses() {
  const args = ["--store", await newDatabase("listen2"), "--shared", "--manual"];
  const a = await startMockProcess(KEYS, args);
  const b = await startMockProcess(KEYS, args);
  const admin = createHttpControl({ url: a.url, adminToken: ADMIN_TOKEN });
  const accountId = (await admin.accounts()).find((view) => view.publicKey === KEYS.publicKey)!.accountId;
  return { a, b, admin, accountId };
}

async function listener(url: string, forwardTo: string) {
  const started = await cliListener(url, KEYS, forwardTo);
  cleanups.push(started.kill);
  return started;
}

async function receiver() {
  const started = await laptopReceiver(() => ({ status: 204 }));
  cleanups.push(started.close);
  return started;
}

it("a second listen on the other process takes the deliveries over, and the first exits 1 saying so", async () => {
  const { a, b, admin, accountId } = await twoProcesses();
  const [first, second] = [await receiver(), await receiver()];
  const onA = await listener(a.url, first.url);
  const shop = merchant(a.url, KEYS);
  const before = await shop.payin();
  await admin.payPayin(before, { awaitWebhooks: true });
  expect(first.arrivals.map((x) => x.id)).toEqual([before]);

  const onB = await listener(b.url, second.url);
  const exit = await Promise.race([
    onA.exited,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 60_000).unref()),
  ]);
  expect(exit, "the first listener, taken over through another process, exits").toEqual({
    code: 1,
    signal: null,
  });
  expect(onA.stderr()).toMatch(/took over/);
  expect(onB.child.exitCode).toBeNull();

  // whichever process the payins go through, the second listener gets them, the first none
  const after = [await shop.payin(), await merchant(b.url, KEYS).payin()];
  for (const id of after) await admin.payPayin(id, { awaitWebhooks: true });
  expect(second.arrivals.map((x) => x.id).sort()).toEqual([...after].sort());
  expect(first.arrivals.map((x) => x.id)).toEqual([before]);
  const log = await logOf(admin, accountId);
  expect(log.map((d) => d.state)).toEqual(["delivered", "delivered", "delivered"]);
}, 120_000);

it("trigger --url <the other process> reports the attempt the listener answered, and awaitWebhooks on it waits for that attempt", async () => {
  const { a, b, accountId } = await twoProcesses();
  const got = await receiver();
  await listener(a.url, got.url);

  const child = spawnGroup(process.execPath, [await mockCli(), "trigger", "payin.approved", "--url", b.url], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PAYKIT_PUBLIC_KEY: KEYS.publicKey, PAYKIT_SECRET_KEY: KEYS.secretKey },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const [code] = (await once(child, "exit")) as [number | null];
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toMatch(/^ {2}APPROVED +payin pi_\w+ {2}delivered, 1 attempt, answered 204$/m);
  expect(got.arrivals).toHaveLength(1);

  // a control call sent to B with awaitWebhooks answers once the attempt made for A's listener is in
  const controlB = createHttpControl({ url: b.url, adminToken: ADMIN_TOKEN });
  for (let n = 0; n < 3; n++) {
    const id = await merchant(b.url, KEYS).payin();
    await controlB.payPayin(id, { awaitWebhooks: true });
    const delivery = (await logOf(controlB, accountId)).find((d) => d.resourceId === id);
    expect(delivery?.state, `payin ${n}'s delivery when payPayin answered`).toBe("delivered");
    expect(got.arrivals.map((x) => x.id)).toContain(id);
  }
}, 120_000);
