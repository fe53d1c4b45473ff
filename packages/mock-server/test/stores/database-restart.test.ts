// PostgreSQL crashes (`pg_ctl stop -m immediate`) and starts again under load, with two mock processes
// on it: afterwards no webhook was sent for a change the store does not hold (every event received is a
// saved delivery, of a status its record went through), and no webhook-id was used for two different
// events, nor one event under two webhook-ids.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";
import { type PrivatePostgres, startPrivatePostgres } from "./private-postgres.js";
import { ADMIN, killAll, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_dbrestart01", secretKey: "sk_test_dbrestart01" };
const CLIENTS = 12;

let postgres: PrivatePostgres | null = null;
let receiver: Server | null = null;
afterEach(async () => {
  killAll();
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver === null ? resolve(null) : receiver.close(resolve)));
  receiver = null;
  await postgres?.close();
  postgres = null;
});

interface Received {
  webhookId: string;
  body: string;
  event: { id: string; status: string };
}

/** A receiver that answers 200 and keeps each delivery's webhook-id and exact body. */
async function startReceiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ webhookId: String(req.headers["webhook-id"]), body, event: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  receiver = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** Clients creating automatic payouts and paying PIX payins, spread over the processes, until stopped. */
function runLoad(urls: string[], hook: string) {
  const counts = { answered: 0, payouts: 0, unavailable: 0, failed: 0 };
  let stopped = false;
  const headers = { authorization: basic(KEYS), "content-type": "application/json" };
  const send = async (url: string, init: RequestInit & { admin?: boolean }) => {
    try {
      const res = await fetch(url, { ...init, headers: init.admin ? ADMIN : headers });
      const body = (await res.json().catch(() => null)) as { id?: string } | null;
      if (res.status === 503) counts.unavailable += 1;
      return { status: res.status, id: body?.id };
    } catch {
      counts.failed += 1;
      return { status: 0, id: undefined };
    }
  };
  const client = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const base = urls[(n + i) % urls.length] as string;
      const payout = payoutBody({ referenceId: `restart-${n}-${i}`, amount: 200 + n, webhookUrl: hook });
      const created = await send(`${base}/payout`, { method: "POST", body: JSON.stringify(payout) });
      if (created.status === 201) counts.payouts += 1;
      const payin = await send(`${base}/payin`, {
        method: "POST",
        body: JSON.stringify(pixPayin({ webhookUrl: hook })),
      });
      if (payin.status !== 201) continue;
      const paid = await send(`${base}/_mock/payins/${payin.id}/pay`, { method: "POST", admin: true });
      if (paid.status === 200) counts.answered += 1;
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  return {
    counts,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

it("a database restart under load leaves no webhook for an unsaved change and no webhook-id for two events", async () => {
  postgres = await startPrivatePostgres();
  const hook = await startReceiver();
  const mocks: { child: ChildProcess; url: string }[] = [];
  for (let i = 0; i < 2; i++) mocks.push(await startMockProcess(KEYS, ["--store", postgres.url]));
  const load = runLoad(
    mocks.map((m) => m.url),
    hook.url,
  );
  try {
    // three times: each crash lands wherever the saves, the steps and the sends happen to be
    for (let round = 1; round <= 3; round++) {
      const answered = load.counts.answered;
      await expect
        .poll(() => load.counts.answered, { timeout: 90_000, interval: 50 })
        .toBeGreaterThan(answered + 15);
      await postgres.stopImmediately();
      // requests go on against a store that is down, then against one that restarted
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await postgres.start();
    }
    const answered = load.counts.answered;
    await expect
      .poll(() => load.counts.answered, { timeout: 90_000, interval: 50 })
      .toBeGreaterThan(answered + 15);
    await load.stop();
    console.log(
      `database restarts: ${load.counts.answered} payins paid, ${load.counts.payouts} payouts created; ` +
        `${load.counts.unavailable} answers 503, ${load.counts.failed} connections failed; ` +
        `${hook.received.length} webhooks received by then`,
    );
  } finally {
    await load.stop();
  }

  // every automatic payout reaches its end and every delivery is sent
  const db = await openPostgres(postgres.url, { max: 1 });
  try {
    await expect
      .poll(
        async () => {
          await fetch(`${mocks[0]?.url}/_mock/webhooks/flush`, { method: "POST", headers: ADMIN }).catch(
            () => {},
          );
          const { rows } = await db.query<{ open: number }>(
            `SELECT (SELECT count(*) FROM paykit_payouts WHERE status IN ('PENDING', 'APPROVED', 'PROCESSING'))
                  + (SELECT count(*) FROM paykit_deliveries WHERE state = 'pending') AS open`,
          );
          return Number(rows[0]?.open);
        },
        { timeout: 90_000, interval: 500 },
      )
      .toBe(0);

    const records = new Map<string, { status: string; transitions: { status: string }[] | null }>();
    for (const table of ["paykit_payins", "paykit_payouts"]) {
      const { rows } = await db.query<{
        record: { id: string; status: string; transitions: { status: string }[] | null };
      }>(`SELECT record FROM ${table}`);
      for (const { record } of rows) records.set(record.id, record);
    }
    const { rows: deliveries } = await db.query<{
      webhook_id: string;
      resource_id: string;
      status: string;
      state: string;
      payload: string;
    }>(
      `SELECT record->>'webhookId' AS webhook_id, resource_id, record->>'status' AS status, state,
              record->>'payload' AS payload FROM paykit_deliveries`,
    );
    const savedDelivery = new Map(deliveries.map((d) => [d.webhook_id, d]));

    const bodiesOf = new Map<string, Set<string>>();
    const idsOf = new Map<string, Set<string>>();
    for (const r of hook.received) {
      bodiesOf.set(r.webhookId, (bodiesOf.get(r.webhookId) ?? new Set()).add(r.body));
      const event = `${r.event.id} ${r.event.status}`;
      idsOf.set(event, (idsOf.get(event) ?? new Set()).add(r.webhookId));
      // a change the store holds: its record went through that status, and the delivery is saved as sent
      const record = records.get(r.event.id);
      expect(record, `${event} received for a record the store does not hold`).toBeDefined();
      const history = new Set([record?.status, ...(record?.transitions ?? []).map((t) => t.status)]);
      expect(history.has(r.event.status), `${event} received; the store has ${[...history]}`).toBe(true);
      const saved = savedDelivery.get(r.webhookId);
      expect(saved, `webhook-id ${r.webhookId} (${event}) is no saved delivery`).toBeDefined();
      expect([saved?.resource_id, saved?.status, saved?.payload]).toEqual([
        r.event.id,
        r.event.status,
        r.body,
      ]);
    }
    for (const [webhookId, bodies] of bodiesOf) expect(bodies.size, `bodies under ${webhookId}`).toBe(1);
    for (const [event, ids] of idsOf) expect([...ids], `webhook-ids of ${event}`).toHaveLength(1);
    // and the other way round: every delivery the store holds as sent reached the receiver
    const receivedIds = new Set(hook.received.map((r) => r.webhookId));
    for (const d of deliveries)
      expect(receivedIds.has(d.webhook_id), `${d.webhook_id} (${d.state})`).toBe(true);
    expect(deliveries.length).toBeGreaterThan(40);
  } finally {
    await db.close();
    for (const mock of mocks) {
      mock.child.kill("SIGTERM");
      if (mock.child.exitCode === null) await once(mock.child, "exit");
    }
  }
}, 240_000);
