// `paykit-mock listen` against a team's sandbox: two `paykit-mock --shared` processes on one PostgreSQL
// store, a listener process polling one of them while the requests go to both, and a local receiver. Deliveries of
// the listener's account arrive signed, none of another account's; the listener (kill -9) and the
// receiver die mid-stream and come back, and every delivery still arrives, under its own webhook-id,
// each resource's events in order; the sandbox's delivery log shows the local answers.
import type { ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, expect, it } from "vitest";
import { createHttpControl } from "../../src/control/http-client.js";
import { basic, payoutBody, pixPayin, ref } from "../fixtures.js";
import { cliListener } from "../listen-attack-harness.js";
import { ADMIN_TOKEN, killAll, newDatabase, startMockProcess } from "./processes.js";

const NOWHERE = "http://127.0.0.1:9/webhooks";
const SECRET = `whsec_${Buffer.from("the team sandbox listener's secret").toString("base64")}`;
const KEYS = { publicKey: "pk_test_listencluster1", secretKey: "sk_test_listencluster1" };

interface Got {
  webhookId: string;
  id: string;
  status: string;
  verified: boolean;
}

/** The laptop's receiver on a fixed port: stopped at once (connections cut) and started again. */
async function laptopReceiver() {
  const got: Got[] = [];
  const verifier = new Webhook(SECRET);
  let server: Server | null = null;
  let port = 0;
  const start = async () => {
    const next = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        const event = JSON.parse(body) as { id: string; status: string };
        let verified = true;
        try {
          verifier.verify(body, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        got.push({
          webhookId: String(req.headers["webhook-id"]),
          id: event.id,
          status: event.status,
          verified,
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => next.listen(port, "127.0.0.1", resolve));
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  await start();
  return {
    got,
    url: `http://127.0.0.1:${port}/webhooks`,
    start,
    stop: async () => {
      const s = server;
      server = null;
      s?.closeAllConnections();
      await new Promise<void>((resolve) => s?.close(() => resolve()) ?? resolve());
    },
  };
}

const listeners: ChildProcess[] = [];
let receiverStop: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const child of listeners.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  killAll();
  await receiverStop?.();
});

/** A real `paykit-mock listen --json` process on the sandbox, attached; killed after the test. */
async function startListener(url: string, forwardTo: string) {
  const listener = await cliListener(url, KEYS, forwardTo);
  listeners.push(listener.child);
  return listener;
}

it("brings one account's deliveries, made through either process, and loses none when the listener and the receiver die", async () => {
  const store = await newDatabase("listen");
  const args = ["--store", store, "--shared", "--manual"];
  const a = await startMockProcess(KEYS, args);
  const b = await startMockProcess(KEYS, args);
  const admin = createHttpControl({ url: a.url, adminToken: ADMIN_TOKEN });
  await admin.updateAccount((await admin.accounts())[0]!.accountId, { webhookSecret: SECRET });
  const other = await admin.createAccount({ balance: 1_000_000 });
  const receiver = await laptopReceiver();
  receiverStop = receiver.stop;

  let listener = await startListener(b.url, receiver.url);
  const made: { account: "own" | "other"; id: string; statuses: string[] }[] = [];
  // Each round: a PIX payin paid and a payout moved to COMPLETED, through either process; the other
  // account's payin as well.
  const round = async (n: number) => {
    const via = n % 2 === 0 ? a.url : b.url;
    const post = (keys: { publicKey: string; secretKey: string }, path: string, body: unknown) =>
      fetch(`${via}${path}`, {
        method: "POST",
        headers: { authorization: basic(keys), "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((res) => res.json() as Promise<{ id: string }>);
    const payin = await post(KEYS, "/payin", pixPayin({ webhookUrl: NOWHERE }));
    await admin.payPayin(payin.id);
    made.push({ account: "own", id: payin.id, statuses: ["APPROVED"] });
    const payout = await post(
      KEYS,
      "/payout",
      payoutBody({ referenceId: ref(`l${n}`), webhookUrl: NOWHERE }),
    );
    await admin.advancePayout(payout.id);
    await admin.advancePayout(payout.id);
    made.push({ account: "own", id: payout.id, statuses: ["PROCESSING", "COMPLETED"] });
    const theirs = await post(other, "/payin", pixPayin({ webhookUrl: NOWHERE }));
    await admin.payPayin(theirs.id);
    made.push({ account: "other", id: theirs.id, statuses: ["APPROVED"] });
  };

  for (let n = 0; n < 4; n++) await round(n);
  await expect.poll(() => receiver.got.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
  // mid-stream: the receiver stops (the listener records refused connections), a round goes on, the
  // listener is killed, and the rounds go on
  await receiver.stop();
  await round(4);
  // the listener tried the stopped receiver (its refusal is in the log) before it is killed: another
  // process's deliveries reach it through the process it polls a moment after they are made
  const ownId = (await admin.accounts()).find((view) => view.publicKey === KEYS.publicKey)!.accountId;
  await expect
    .poll(
      async () =>
        (await admin.webhooks(ownId, { limit: 1000 }))
          .flatMap((d) => d.attempts)
          .some((x) => x.statusCode === null),
      { timeout: 30_000 },
    )
    .toBe(true);
  await listener.kill();
  for (let n = 5; n < 8; n++) await round(n);
  await receiver.start();
  listener = await startListener(b.url, receiver.url);
  for (let n = 8; n < 10; n++) await round(n);

  // Whatever failed meanwhile waits for its retry on the account's clock: move it on, and flush.
  const own = made.filter((m) => m.account === "own");
  const expected = own.reduce((sum, m) => sum + m.statuses.length, 0);
  await expect
    .poll(
      async () => {
        await admin.setAccountClock(ownId, { advanceMs: 10 * 60_000 });
        await admin.flushWebhooks(ownId);
        const log = await admin.webhooks(ownId, { limit: 1000 });
        return log.filter((d) => d.state === "delivered").length;
      },
      { timeout: 90_000, interval: 1_000 },
    )
    .toBe(expected);

  const log = await admin.webhooks(ownId, { limit: 1000 });
  expect(log).toHaveLength(expected);
  const gotIds = new Set(receiver.got.map((g) => g.webhookId));
  for (const delivery of log) {
    // every delivery reached the laptop under its own webhook-id, and the log holds the laptop's answer
    expect(gotIds.has(delivery.webhookId), `${delivery.resourceId} ${delivery.status}`).toBe(true);
    expect(delivery.attempts.at(-1)?.statusCode).toBe(200);
  }
  // one webhook-id per event, whatever was sent again
  for (const g of receiver.got) {
    const entry = log.find((d) => d.webhookId === g.webhookId);
    expect(entry && [entry.resourceId, entry.status]).toEqual([g.id, g.status]);
  }
  expect(receiver.got.every((g) => g.verified)).toBe(true);
  // the receiver's refusals while it was down are in the log too, as the laptop saw them
  const refused = log.flatMap((d) => d.attempts).filter((x) => x.statusCode === null);
  expect(refused.length).toBeGreaterThan(0);
  for (const x of refused) expect(x.error).toContain(`(at ${receiver.url})`);
  // none of the other account's
  const theirs = new Set(made.filter((m) => m.account === "other").map((m) => m.id));
  expect(receiver.got.filter((g) => theirs.has(g.id))).toEqual([]);
  // each resource's events in order: the first arrival of each status follows its order of events
  for (const m of own) {
    const firsts: string[] = [];
    for (const g of receiver.got) if (g.id === m.id && !firsts.includes(g.status)) firsts.push(g.status);
    expect(firsts, m.id).toEqual(m.statuses);
  }
  // the listener's own output: one line per delivery it posted, with the answer
  expect(listener.lines.some((line) => line.type === "delivery")).toBe(true);
}, 240_000);
