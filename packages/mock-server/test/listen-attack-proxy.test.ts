// `paykit-mock listen` when a poll's answer is lost on the way: a small HTTP proxy between the listener
// and the mock lets the mock answer each poll, then loses some of those answers on the way back (the
// connection closed without a word, reset, or cut in the middle of the body), two in a row at times.
// The sandbox hands an unanswered attempt out again and the listener keeps its acks for the next poll,
// so nothing is lost and no attempt is posted twice: every delivery reaches the laptop once, and is
// delivered at its first attempt (docs/decisions/mock-listen.md: "a poll whose answer was lost
// costs nothing").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { createMockServer } from "../src/index.js";
import {
  cleanups,
  expectInOrder,
  expectNoneLost,
  inProcessListener,
  laptopReceiver,
  logOf,
  merchant,
} from "./listen-attack-harness.js";

const started = cleanups();
afterEach(() => started.run());

type Loss = "closed" | "reset" | "cut";

/**
 * A proxy to `target` that loses the answers of some polls that carry attempts or acks, after the
 * mock gave them: of every four such polls, the 2nd and 3rd answers are lost (closed, reset or cut).
 */
async function lossyProxy(target: string) {
  const lost: { kind: Loss; attempts: number; acks: number }[] = [];
  const kinds: Loss[] = ["closed", "reset", "cut"];
  let interesting = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers.set(name, value);
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const text = Buffer.from(await answer.arrayBuffer());
      const poll = req.method === "POST" && /^\/_mock\/accounts\/[^/]+\/listen$/.test(req.url ?? "");
      if (poll && answer.status === 200) {
        const attempts = (JSON.parse(text.toString()) as { attempts: unknown[] }).attempts.length;
        const acks = (JSON.parse(body.toString()) as { acks?: unknown[] }).acks?.length ?? 0;
        if (attempts + acks > 0 && [1, 2].includes(interesting++ % 4)) {
          const kind = kinds[lost.length % kinds.length]!;
          lost.push({ kind, attempts, acks });
          if (kind === "closed") return void req.socket.destroy();
          if (kind === "reset") return void req.socket.resetAndDestroy();
          res.writeHead(200, { "content-type": "application/json", "content-length": text.length });
          res.write(text.subarray(0, Math.floor(text.length / 2)));
          return void setTimeout(() => req.socket.destroy(), 20);
        }
      }
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lost,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

it("loses nothing and posts nothing twice when poll answers are lost after the mock gave them", async () => {
  const mock = await createMockServer({ autoAdvance: false });
  started.add(() => mock.close());
  const keys = await mock.control.createAccount({ balance: 10_000_000 });
  const proxy = await lossyProxy(mock.url);
  started.add(proxy.close);
  const receiver = await laptopReceiver();
  started.add(receiver.close);
  const listener = inProcessListener({ url: proxy.url, keys, forwardTo: receiver.url, waitMs: 500 });
  started.add(listener.stop);
  await listener.ready;

  // waves of events, so that the stream spans many polls
  const shop = merchant(mock.url, keys);
  const payouts: string[] = [];
  for (let wave = 0; wave < 8; wave++) {
    const payins = await Promise.all(Array.from({ length: 5 }, () => shop.payin()));
    const payout = await shop.payout();
    payouts.push(payout);
    await Promise.all([
      ...payins.map((id) => mock.control.payPayin(id, { awaitWebhooks: true })),
      mock.control
        .advancePayout(payout, { awaitWebhooks: true })
        .then(() => mock.control.advancePayout(payout, { awaitWebhooks: true })),
    ]);
  }
  const expected = 8 * (5 + 2);
  await expect
    .poll(
      async () => (await logOf(mock.control, keys.accountId)).filter((d) => d.state === "delivered").length,
    )
    .toBe(expected);

  const log = await logOf(mock.control, keys.accountId);
  expectNoneLost(log, receiver.arrivals);
  // each attempt was posted once: one arrival per event, and each delivered at its first attempt
  for (const delivery of log) {
    const label = `${delivery.resourceId} ${delivery.status}`;
    expect(
      delivery.attempts.map((a) => a.statusCode),
      label,
    ).toEqual([200]);
    expect(
      receiver.arrivals.filter((a) => a.webhookId === delivery.webhookId),
      label,
    ).toHaveLength(1);
    expect(
      listener.lines.filter((l) => l.deliveryId === delivery.id),
      label,
    ).toHaveLength(1);
  }
  for (const id of payouts) expectInOrder(receiver.arrivals, id, ["PROCESSING", "COMPLETED"]);
  // the proxy did lose answers with attempts in them, and answers to polls that carried acks, of each kind
  expect(proxy.lost.filter((l) => l.attempts > 0).length).toBeGreaterThan(3);
  expect(proxy.lost.filter((l) => l.acks > 0).length).toBeGreaterThan(3);
  expect(new Set(proxy.lost.map((l) => l.kind))).toEqual(new Set(["closed", "reset", "cut"]));
  expect(listener.connection.some((c) => c.startsWith("lost"))).toBe(true);
}, 60_000);
