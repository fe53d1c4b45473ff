// Two mock processes on one PostgreSQL sandbox: an attempt that takes longer than a claim's lease (a
// receiver that answers after 16 s, with a 30 s receiver timeout) stays with the process making it,
// which renews its claim every 2 s; the other process never sends a second copy
// (docs/decisions/sandbox-store.md, "Deliveries are a queue").
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { createMockServer, type MockServer } from "../../src/index.js";
import { CLAIM_LEASE_MS } from "../../src/work/worker.js";
import { basic, pixPayin } from "../fixtures.js";
import { ADMIN_TOKEN, newDatabase } from "./processes.js";

const SLOW_ANSWER_MS = 16_000;
const servers: MockServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

it("keeps a slow attempt with the process making it, past its lease: the receiver gets one copy", async () => {
  expect(SLOW_ANSWER_MS).toBeGreaterThan(CLAIM_LEASE_MS + 4_000);
  const arrivals: { at: number; webhookId: string }[] = [];
  const receiver = createServer((req, res) => {
    arrivals.push({ at: Date.now(), webhookId: String(req.headers["webhook-id"]) });
    req.resume();
    setTimeout(() => res.writeHead(204).end(), SLOW_ANSWER_MS).unref();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const url = await newDatabase("renewal");
    const options = { adminToken: ADMIN_TOKEN, autoAdvance: false, store: { url }, webhookTimeoutMs: 30_000 };
    const a = await createMockServer(options);
    servers.push(a);
    const b = await createMockServer(options);
    servers.push(b);
    const keys = await a.control.createAccount({});
    const res = await fetch(`${a.url}/payin`, {
      method: "POST",
      headers: { authorization: basic(keys), "content-type": "application/json" },
      body: JSON.stringify(pixPayin({ webhookUrl: hook })),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await a.control.payPayin(id);

    // whichever process claimed the attempt, the other one polls the store every 200 ms meanwhile
    await expect.poll(() => arrivals.length, { timeout: 30_000 }).toBe(1);
    const first = arrivals[0]!.at;
    await expect
      .poll(async () => (await b.control.webhooks(keys.accountId)).find((d) => d.resourceId === id)?.state, {
        timeout: SLOW_ANSWER_MS + 15_000,
        interval: 500,
      })
      .toBe("delivered");
    expect(Date.now() - first).toBeGreaterThan(CLAIM_LEASE_MS);
    // a little longer, for a copy that would be on its way
    await sleep(2_000);
    expect(arrivals).toHaveLength(1);
    const delivery = (await a.control.webhooks(keys.accountId)).find((d) => d.resourceId === id);
    expect(delivery?.attempts).toHaveLength(1);
    expect(delivery?.attempts[0]?.statusCode).toBe(204);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
}, 90_000);
