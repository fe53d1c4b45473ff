// `kill -9` of a durable mock in the middle of a load, then a start on the same store: every payin and
// payout answered 201 is there, the balance equals what its payouts debit, no referenceId exists twice,
// and every event is delivered, once per status change (a re-sent event keeps its webhook-id).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";

const CLI = fileURLToPath(new URL("../../src/transports/node/cli.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;
const ADMIN = "admin-token-for-kill-tests";
const KEYS = { publicKey: "pk_test_killnine01", secretKey: "sk_test_killnine01" };
const OPENING = 1_000_000;

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `paykit-mock` with its state in `storeArgs`; answers its URL once it listens. */
async function startMock(storeArgs: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX_LOADER,
      "--conditions=@paykit/source",
      CLI,
      "--port",
      "0",
      "--manual",
      "--admin-token",
      ADMIN,
      "--default-keys",
      `${KEYS.publicKey}:${KEYS.secretKey}`,
      ...storeArgs,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`paykit-mock did not start: ${stderr}`);
  const url = String(first.value).replace("Paykit mock listening on ", "");
  return { child, url };
}

/** A receiver that answers 200 and records each delivery. */
async function receiver() {
  const received: { webhookId: string; id: string; status: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const event = JSON.parse(body) as { id: string; status: string };
      received.push({ webhookId: String(req.headers["webhook-id"]), id: event.id, status: event.status });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let databases = 0;
const STORES = {
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-kill-"));
    dirs.push(dir);
    return ["--data-dir", dir];
  },
  postgres: async () => {
    const url = inject("postgresUrl");
    const name = `kill_${process.pid}_${++databases}`;
    const admin = await openPostgres(url, { max: 1 });
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.close();
    return ["--store", url.replace(/\/[^/]*$/, `/${name}`)];
  },
};

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])(
  "kill -9 of a mock on %s under load",
  (kind) => {
    it("loses no answered payin or payout, no money and no event", async () => {
      const storeArgs = await STORES[kind]();
      const hook = await receiver();
      let mock = await startMock(storeArgs);
      const headers = { authorization: basic(KEYS), "content-type": "application/json" };
      const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
      const createdPayouts = new Map<string, { id: string; amount: number }>();
      const paidPayins = new Set<string>();
      let answered = 0;
      let killed = false;

      // 30 clients, each sending payouts (a referenceId used twice on purpose) and paid PIX payins
      // until the process is killed under them
      const client = async (n: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const referenceId = `kill-${n}-${i % 7 === 6 ? i - 1 : i}`;
            const payout = await fetch(`${mock.url}/payout`, {
              method: "POST",
              headers,
              body: JSON.stringify(payoutBody({ referenceId, amount: 1_000 + n })),
            });
            if (payout.status === 201) {
              const body = (await payout.json()) as { id: string; amount: number };
              createdPayouts.set(body.id, body);
            } else await payout.arrayBuffer();
            const payin = await fetch(`${mock.url}/payin`, {
              method: "POST",
              headers,
              body: JSON.stringify(pixPayin({ webhookUrl: hook.url })),
            });
            if (payin.status !== 201) continue;
            const { id } = (await payin.json()) as { id: string };
            const paid = await fetch(`${mock.url}/_mock/payins/${id}/pay`, {
              method: "POST",
              headers: admin,
            });
            if (paid.status === 200) paidPayins.add(id);
            await paid.arrayBuffer();
            answered += 1;
          } catch {
            // the connection died with the process
          }
        }
      };
      const load = Promise.all(Array.from({ length: 30 }, (_, n) => client(n)));
      await expect.poll(() => answered, { timeout: 30_000, interval: 20 }).toBeGreaterThan(60);
      mock.child.kill("SIGKILL");
      killed = true;
      await once(mock.child, "exit");
      await load;
      expect(createdPayouts.size).toBeGreaterThan(20);
      console.log(
        `${kind}: kill -9 after ${createdPayouts.size} payouts and ${paidPayins.size} paid payins were answered`,
      );

      mock = await startMock(storeArgs);
      try {
        // every payout answered 201 is there, each referenceId once
        const listed: { id: string; amount: number; referenceId: string; status: string }[] = [];
        for (let page = 1; ; page++) {
          const res = await fetch(`${mock.url}/payout?limit=100&page=${page}`, { headers });
          const body = (await res.json()) as { data: typeof listed; meta: { totalPages: number } };
          listed.push(...body.data);
          if (page >= body.meta.totalPages) break;
        }
        const ids = new Set(listed.map((p) => p.id));
        for (const id of createdPayouts.keys()) expect(ids.has(id), `payout ${id} answered 201`).toBe(true);
        expect(new Set(listed.map((p) => p.referenceId)).size).toBe(listed.length);
        // the balance is what the payouts debit, no more, no less
        const accounts = (await (await fetch(`${mock.url}/_mock/accounts`, { headers: admin })).json()) as {
          data: { accountId: string; publicKey: string; balance: { available: number; pending: number } }[];
        };
        const own = accounts.data.find((a) => a.publicKey === KEYS.publicKey);
        const debited = listed.reduce((sum, p) => sum + p.amount, 0);
        const payins = (
          (await (
            await fetch(`${mock.url}/_mock/payins?accountId=${own?.accountId}&limit=1000`, { headers: admin })
          ).json()) as { data: { id: string; status: string; netAmount: number | null }[] }
        ).data;
        expect(payins.length).toBeLessThan(1000);
        const credited = payins.reduce(
          (sum, p) => sum + (p.status === "APPROVED" ? (p.netAmount ?? 0) : 0),
          0,
        );
        expect(own?.balance.available).toBe(OPENING + credited - debited);
        expect(own?.balance.pending).toBe(debited);
        // every payin paid before the kill is APPROVED, and its event reaches the receiver
        const approved = new Set(payins.filter((p) => p.status === "APPROVED").map((p) => p.id));
        for (const id of paidPayins) expect(approved.has(id), `payin ${id} answered paid`).toBe(true);
        await fetch(`${mock.url}/_mock/webhooks/flush`, { method: "POST", headers: admin });
        await expect
          .poll(() => new Set(hook.received.filter((r) => r.status === "APPROVED").map((r) => r.id)).size, {
            timeout: 20_000,
          })
          .toBe(approved.size);
        // a re-sent event keeps its webhook-id: one id per payin and status
        const idsPerEvent = new Map<string, Set<string>>();
        for (const r of hook.received) {
          const key = `${r.id}:${r.status}`;
          idsPerEvent.set(key, (idsPerEvent.get(key) ?? new Set()).add(r.webhookId));
        }
        for (const [event, webhookIds] of idsPerEvent) expect(webhookIds.size, event).toBe(1);
      } finally {
        mock.child.kill("SIGTERM");
        await once(mock.child, "exit");
        await hook.close();
      }
    }, 120_000);
  },
);
