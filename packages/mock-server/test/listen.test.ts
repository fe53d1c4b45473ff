// `paykit-mock listen` on one mock: while a listener is attached, an account's deliveries reach the
// local receiver with the headers and signature the sandbox sends, and the receiver's answers are the
// attempts the delivery log shows; none of another account's; a receiver that is down meets the
// sandbox's retry schedule with the same webhook-id; a second listener takes over; a stopped one hands
// the deliveries back to their URL. (The multi-process case is test/stores/listen-cluster.test.ts.)
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountKeys } from "../src/domain/accounts.js";
import { createHttpControl, createMockServer, type MockServer } from "../src/index.js";
import { type ListenedDelivery, ListenStoppedError, runListener } from "../src/listen/listener.js";
import { basic, payoutBody, pixPayin, ref } from "./fixtures.js";

const SECRET = `whsec_${Buffer.from("a listener test's signing secret").toString("base64")}`;

/** Where a delivery no listener takes goes: a port nothing listens on. */
const NOWHERE = "http://127.0.0.1:9/webhooks";

interface Got {
  webhookId: string;
  id: string;
  status: string;
  headers: Record<string, string>;
  body: string;
}

/** The developer's local receiver: records each delivery and answers `status`. */
async function localReceiver() {
  const got: Got[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      // a receiver, not a mock: what is not a delivery (a check for GET /_mock/openapi.json) is a 404
      if (req.method !== "POST") return void res.writeHead(404).end();
      const event = JSON.parse(body) as { id: string; status: string };
      got.push({
        webhookId: String(req.headers["webhook-id"]),
        id: event.id,
        status: event.status,
        headers: req.headers as Record<string, string>,
        body,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    got,
    answer(code: number) {
      status = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A listener run in this process, stopped by `stop()`. */
function startListener(mock: MockServer, keys: AccountKeys, forwardTo: string, events?: string[]) {
  const controller = new AbortController();
  const lines: ListenedDelivery[] = [];
  let readyResolve: () => void;
  const ready = new Promise<void>((resolve) => {
    readyResolve = resolve;
  });
  const done = runListener(
    {
      url: mock.url,
      keys,
      forwardTo,
      signal: controller.signal,
      waitMs: 2_000,
      ...(events ? { events } : {}),
    },
    {
      ready: () => readyResolve(),
      delivery: (delivery) => lines.push(delivery),
      connection: () => {},
    },
  );
  return {
    ready,
    lines,
    done,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

const mocks: MockServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  for (const mock of mocks.splice(0)) await mock.close();
});

async function setUp() {
  const mock = await createMockServer({ autoAdvance: false });
  mocks.push(mock);
  const receiver = await localReceiver();
  closers.push(receiver.close);
  const keys = await mock.control.createAccount({ balance: 500_000, webhookSecret: SECRET });
  const api = (path: string, body: unknown) =>
    fetch(`${mock.url}${path}`, {
      method: "POST",
      headers: { authorization: basic(keys), "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { id: string; status: string },
    }));
  return { mock, receiver, keys, api };
}

describe("paykit-mock listen on one mock", () => {
  it("brings the account's deliveries to the local receiver, signed, and records its answers as the attempts", async () => {
    const { mock, receiver, keys, api } = await setUp();
    const other = await mock.control.createAccount({});
    const listener = startListener(mock, keys, receiver.url);
    closers.push(listener.stop);
    await listener.ready;

    const payin = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(payin.id, { awaitWebhooks: true });
    const payout = (await api("/payout", payoutBody({ referenceId: ref("listen"), webhookUrl: NOWHERE })))
      .body;
    await mock.control.advancePayout(payout.id, { awaitWebhooks: true });
    await mock.control.advancePayout(payout.id, { awaitWebhooks: true });
    // another account's event goes to its own URL, never to this listener
    const theirs = await fetch(`${mock.url}/payin`, {
      method: "POST",
      headers: { authorization: basic(other), "content-type": "application/json" },
      body: JSON.stringify(pixPayin({ webhookUrl: NOWHERE })),
    }).then((res) => res.json() as Promise<{ id: string }>);
    await mock.control.payPayin(theirs.id, { awaitWebhooks: true });

    expect(receiver.got.map((g) => [g.id, g.status])).toEqual([
      [payin.id, "APPROVED"],
      [payout.id, "PROCESSING"],
      [payout.id, "COMPLETED"],
    ]);
    // the very request the sandbox sends: its signature verifies with the account's secret
    const verifier = new Webhook(SECRET);
    for (const g of receiver.got) expect(() => verifier.verify(g.body, g.headers)).not.toThrow();
    const log = await mock.control.webhooks(keys.accountId);
    for (const delivery of log) {
      expect(delivery.state).toBe("delivered");
      expect(delivery.url).toBe(NOWHERE);
      expect(delivery.attempts.map((a) => a.statusCode)).toEqual([200]);
      expect(receiver.got.find((g) => g.webhookId === delivery.webhookId)).toBeDefined();
    }
    expect(listener.lines.map((l) => `${l.event} ${l.resourceId} ${l.statusCode}`)).toEqual([
      `payin.approved ${payin.id} 200`,
      `payout.processing ${payout.id} 200`,
      `payout.completed ${payout.id} 200`,
    ]);
    const theirLog = await mock.control.webhooks(other.accountId);
    expect(theirLog[0]?.attempts[0]?.statusCode).toBeNull();
    expect(theirLog[0]?.attempts[0]?.error).toBeTruthy();
  });

  it("records a receiver that is down as a failed attempt, retried on the schedule with the same webhook-id", async () => {
    const { mock, receiver, keys, api } = await setUp();
    const listener = startListener(mock, keys, receiver.url);
    closers.push(listener.stop);
    await listener.ready;
    receiver.answer(500);
    const payin = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(payin.id, { awaitWebhooks: true });
    const [failed] = await mock.control.webhooks(keys.accountId);
    expect(failed?.state).toBe("pending");
    expect(failed?.attempts.map((a) => a.statusCode)).toEqual([500]);

    receiver.answer(200);
    await mock.control.setAccountClock(keys.accountId, { advanceMs: 60_000 });
    await mock.control.flushWebhooks(keys.accountId);
    const [delivered] = await mock.control.webhooks(keys.accountId);
    expect(delivered?.state).toBe("delivered");
    expect(delivered?.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
    expect(new Set(receiver.got.map((g) => g.webhookId))).toEqual(new Set([failed?.webhookId]));
  });

  it("keeps a resource's events in order: a later one waits behind an earlier one that did not get through", async () => {
    const { mock, receiver, keys, api } = await setUp();
    const listener = startListener(mock, keys, receiver.url);
    closers.push(listener.stop);
    await listener.ready;
    const arrivals = () => receiver.got.map((g) => `${g.status}`);
    const payout = (await api("/payout", payoutBody({ referenceId: ref("order"), webhookUrl: NOWHERE })))
      .body;
    receiver.answer(500);
    await mock.control.advancePayout(payout.id, { awaitWebhooks: true });
    // still down when COMPLETED happens: PROCESSING is tried again first, and COMPLETED waits unattempted
    await mock.control.advancePayout(payout.id, { awaitWebhooks: true });
    expect(arrivals()).toEqual(["PROCESSING", "PROCESSING"]);
    const waiting = (await mock.control.webhooks(keys.accountId)).find((d) => d.status === "COMPLETED");
    expect(waiting?.attempts).toEqual([]);
    // back up: at the retry, PROCESSING goes first, then COMPLETED
    receiver.answer(200);
    await mock.control.setAccountClock(keys.accountId, { advanceMs: 10 * 60_000 });
    await mock.control.flushWebhooks(keys.accountId);
    await expect.poll(arrivals).toEqual(["PROCESSING", "PROCESSING", "PROCESSING", "COMPLETED"]);

    // an earlier event that failed once is sent before a later one that comes when the receiver is back
    const next = (await api("/payout", payoutBody({ referenceId: ref("order"), webhookUrl: NOWHERE }))).body;
    receiver.answer(500);
    await mock.control.advancePayout(next.id, { awaitWebhooks: true });
    receiver.answer(200);
    await mock.control.advancePayout(next.id, { awaitWebhooks: true });
    expect(receiver.got.filter((g) => g.id === next.id).map((g) => g.status)).toEqual([
      "PROCESSING",
      "PROCESSING",
      "COMPLETED",
    ]);
    const log = (await mock.control.webhooks(keys.accountId)).filter((d) => d.resourceId === next.id);
    expect(log.map((d) => [d.status, d.state, d.attempts.map((a) => a.statusCode)])).toEqual([
      ["PROCESSING", "delivered", [500, 200]],
      ["COMPLETED", "delivered", [200]],
    ]);
  });

  it("sends what waited for a retry at once when a listener attaches, and hands deliveries back when it stops", async () => {
    const { mock, receiver, keys, api } = await setUp();
    // no listener yet: the delivery fails at its URL and waits for its retry
    const payin = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(payin.id, { awaitWebhooks: true });
    const [waiting] = await mock.control.webhooks(keys.accountId);
    expect(waiting?.state).toBe("pending");

    const listener = startListener(mock, keys, receiver.url);
    await listener.ready;
    await expect
      .poll(() => receiver.got.map((g) => g.webhookId), { timeout: 20_000 })
      .toEqual([waiting?.webhookId]);
    await expect.poll(async () => (await mock.control.webhooks(keys.accountId))[0]?.state).toBe("delivered");

    await listener.stop();
    const later = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(later.id, { awaitWebhooks: true });
    const log = await mock.control.webhooks(keys.accountId);
    expect(log.find((d) => d.resourceId === later.id)?.attempts[0]).toMatchObject({ statusCode: null });
    expect(receiver.got).toHaveLength(1);
  });

  it("takes only the events asked for; the others go to their URL", async () => {
    const { mock, receiver, keys, api } = await setUp();
    const listener = startListener(mock, keys, receiver.url, ["payout.*"]);
    closers.push(listener.stop);
    await listener.ready;
    const payin = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(payin.id, { awaitWebhooks: true });
    const payout = (await api("/payout", payoutBody({ referenceId: ref("only"), webhookUrl: NOWHERE }))).body;
    await mock.control.advancePayout(payout.id, { awaitWebhooks: true });
    expect(receiver.got.map((g) => [g.id, g.status])).toEqual([[payout.id, "PROCESSING"]]);
    const log = await mock.control.webhooks(keys.accountId);
    expect(log.find((d) => d.resourceId === payin.id)?.attempts[0]).toMatchObject({ statusCode: null });
  });

  it("GET /_mock/accounts/{id}/listener says whether a listener takes the account's deliveries, and which", async () => {
    const { mock, receiver, keys } = await setUp();
    const control = createHttpControl({ url: mock.url, credentials: keys });
    expect(await control.listener(keys.accountId)).toEqual({ attached: false, events: null });
    const listener = startListener(mock, keys, receiver.url, ["payout.*", "payin.approved"]);
    await listener.ready;
    expect(await control.listener(keys.accountId)).toEqual({
      attached: true,
      events: ["payout.*", "payin.approved"],
    });
    await listener.stop();
    expect(await mock.control.listener(keys.accountId)).toEqual({ attached: false, events: null });
    await expect(mock.control.listener("acct_nosuchaccount")).rejects.toMatchObject({ status: 404 });
  });

  it("lets a second listener take the account over; the first stops and is told why", async () => {
    const { mock, receiver, keys, api } = await setUp();
    const second = await localReceiver();
    closers.push(second.close);
    const first = startListener(mock, keys, receiver.url);
    await first.ready;
    const next = startListener(mock, keys, second.url);
    closers.push(next.stop);
    await next.ready;
    await expect(first.done).rejects.toBeInstanceOf(ListenStoppedError);
    await expect(first.done).rejects.toThrow(/took over/);
    const payin = (await api("/payin", pixPayin({ webhookUrl: NOWHERE }))).body;
    await mock.control.payPayin(payin.id, { awaitWebhooks: true });
    expect(second.got.map((g) => g.id)).toEqual([payin.id]);
    expect(receiver.got).toEqual([]);
  });

  it("is refused for live keys, for keys of no account, and for a URL that is not a mock", async () => {
    const { mock, receiver } = await setUp();
    const run = (url: string, keys: { publicKey: string; secretKey: string }) =>
      runListener({ url, keys, forwardTo: receiver.url }, { ready() {}, delivery() {}, connection() {} });
    await expect(
      run(mock.url, { publicKey: "pk_live_abcdefgh12", secretKey: "sk_live_abcdefgh12" }),
    ).rejects.toThrow(/live keys/);
    await expect(
      run(mock.url, { publicKey: "pk_test_nobodyhas12", secretKey: "sk_test_nobodyhas12" }),
    ).rejects.toThrow(/no account/);
    await expect(
      run(receiver.url.replace("/webhooks", ""), {
        publicKey: "pk_test_nobodyhas12",
        secretKey: "sk_test_nobodyhas12",
      }),
    ).rejects.toThrow(/not a Paykit mock/);
  });
});
