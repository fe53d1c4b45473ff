// Retention by last use (`--retention`, issue 21): an account no request used for the retention period
// goes with every row it holds, a batch at a time, on the store's clock; an account in use and the
// default account stay. A 2 s retention on memory, PGlite (`--data-dir`) and Debian's PostgreSQL
// (`--store`, a fresh database), with the servers as `createMockServer` opens them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createMockServer, type MockServer, type MockServerOptions } from "../../src/index.js";
import { openPglite, openPostgres, type SqlQueryable } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";
import { ADMIN_TOKEN, newDatabase, webhookReceiver } from "./processes.js";

const RETENTION_MS = 4_000;
const DEADLINE_MS = 60_000;

const dirs: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Kind = "memory" | "pglite" | "postgres";

/** Where each kind keeps its state, and how the test reads its rows afterwards. */
async function storeOf(kind: Kind): Promise<{ options: MockServerOptions; open?: () => Promise<SqlDb> }> {
  if (kind === "memory") return { options: {} };
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "paykit-retention-"));
    dirs.push(dir);
    return { options: { store: { dataDir: dir } }, open: () => openPglite(join(dir, "pglite")) };
  }
  const url = await newDatabase("retention");
  return { options: { store: { url }, adminToken: ADMIN_TOKEN }, open: () => openPostgres(url, { max: 1 }) };
}

type SqlDb = SqlQueryable & { close(): Promise<void> };

/** Every row an account owns, table by table (its PIX keys registered for it alone among them). */
async function rowsOf(db: SqlQueryable, accountId: string): Promise<Record<string, number>> {
  const count = async (sql: string) =>
    Number((await db.query<{ n: number }>(sql, [accountId])).rows[0]?.n ?? 0);
  const rows: Record<string, number> = {
    paykit_accounts: await count("SELECT count(*)::int AS n FROM paykit_accounts WHERE id = $1"),
    pix_keys: await count("SELECT count(*)::int AS n FROM paykit_pix_keys WHERE account_id = $1"),
  };
  for (const table of ["paykit_payins", "paykit_payouts", "paykit_deliveries", "paykit_due", "paykit_faults"])
    rows[table] = await count(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`);
  return rows;
}

/** Waits for `check` to hold, polling, up to a deadline generous enough for a loaded machine. */
async function until(check: () => Promise<boolean>, what: string, tick?: () => Promise<unknown>) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.each<Kind>(["memory", "pglite", "postgres"])("retention by last use on %s", (kind) => {
  it("removes an account unused past the retention with all its rows; a used one and the default stay", async () => {
    const receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    const store = await storeOf(kind);
    let mock: MockServer | null = await createMockServer({
      ...store.options,
      autoAdvance: false,
      retention: RETENTION_MS,
    });
    cleanups.push(() => mock?.close() ?? Promise.resolve());
    const control = mock.control;
    const defaultId = mock.account.accountId;

    // Two accounts with a bit of everything: payins paid (deliveries with attempts), payouts, an own PIX key.
    const seed = async (label: string) => {
      const keys = await control.createAccount({});
      const headers = { authorization: basic(keys), "content-type": "application/json" };
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${mock!.url}${path}`, {
          method: "POST",
          headers,
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(201);
        return (await res.json()) as { id: string };
      };
      for (let i = 0; i < 3; i++) {
        const payin = await post("/payin", pixPayin({ webhookUrl: receiver.url }));
        await control.payPayin(payin.id);
      }
      await post("/payout", payoutBody({ webhookUrl: receiver.url }));
      await control.registerPixKey({
        type: "EMAIL",
        key: `${label}@retention.test`,
        accountId: keys.accountId,
      });
      await control.flushWebhooks(keys.accountId);
      return { keys, headers };
    };
    const unused = await seed("unused");
    // Its rows are counted at once: the retention is short, and seeding the next account on a loaded
    // machine can take longer than it.
    let before: Record<string, number> | null = null;
    if (kind === "postgres") {
      const db = await store.open!();
      cleanups.push(() => db.close());
      before = await rowsOf(db, unused.keys.accountId);
      for (const table of ["paykit_accounts", "paykit_payins", "paykit_payouts"])
        expect(before[table], table).toBeGreaterThan(0);
      expect(before.paykit_deliveries).toBeGreaterThan(0);
      expect(before.pix_keys).toBe(1);
    }
    const used = await seed("used");
    const use = () => fetch(`${mock!.url}/payout?limit=1`, { headers: used.headers });

    // The used account is used every 200 ms; the other one and the default account are left alone.
    const listed = async () => (await control.accounts()).map((a) => a.accountId);
    await until(
      async () => !(await listed()).includes(unused.keys.accountId),
      "the unused account to go",
      use,
    );
    const ids = await listed();
    expect(ids).toContain(used.keys.accountId);
    expect(ids).toContain(defaultId);
    // its keys no longer work, its records and deliveries are gone from the API
    expect((await fetch(`${mock.url}/payout?limit=1`, { headers: unused.headers })).status).toBe(401);
    expect((await control.webhooks()).filter((d) => d.accountId === unused.keys.accountId)).toEqual([]);
    expect((await control.payins(used.keys.accountId)).length).toBe(3);
    expect((await control.pixKeys(used.keys.accountId)).some((k) => k.key === "used@retention.test")).toBe(
      true,
    );

    if (kind === "memory") return;
    if (kind === "postgres") {
      const db = await store.open!();
      cleanups.push(() => db.close());
      await until(
        async () => Object.values(await rowsOf(db, unused.keys.accountId)).every((n) => n === 0),
        "every row of the unused account to be deleted",
        use,
      );
      // the used account's last use is stamped on the database's clock, not only in the process
      const { rows: stamp } = await db.query<{ recent: boolean }>(
        "SELECT last_used_at > now() - $2 * interval '1 millisecond' AS recent FROM paykit_accounts WHERE id = $1",
        [used.keys.accountId, RETENTION_MS],
      );
      expect(stamp[0]?.recent).toBe(true);
      const kept = await rowsOf(db, used.keys.accountId);
      expect(kept.paykit_payins).toBe(3);
      expect(kept.paykit_deliveries).toBeGreaterThan(0);
      expect((await rowsOf(db, defaultId)).paykit_accounts).toBe(1);
      return;
    }
    // PGlite is held by the one process: the rows are counted once it stops (the purge runs in the
    // same sweep as the removal, a few hundred ms; the used account keeps being used meanwhile)
    const stopAt = Date.now() + 3 * RETENTION_MS;
    while (Date.now() < stopAt) {
      await use();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await mock.close();
    mock = null;
    const db = await store.open!();
    cleanups.push(() => db.close());
    expect(Object.values(await rowsOf(db, unused.keys.accountId)).every((n) => n === 0)).toBe(true);
    expect((await rowsOf(db, used.keys.accountId)).paykit_payins).toBe(3);
    expect((await rowsOf(db, defaultId)).paykit_accounts).toBe(1);
  }, 120_000);
});
