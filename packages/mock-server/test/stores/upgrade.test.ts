// A rolling upgrade on a PostgreSQL store: a process of a newer @paykit/mock-server migrates the database
// while two older ones are connected and under load. The older ones then refuse every request with a
// 503 naming both schema versions, log it once, write nothing more (a row trigger records which
// connection wrote what), and the newer one serves everything, what the older ones committed included.
// The newer version is played by a shared store that knows one more, harmless, migration.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SandboxStore } from "../../src/domain/repository.js";
import { createEngine, type MockEngine } from "../../src/http/engine.js";
import { createMockServer, type MockServer } from "../../src/index.js";
import { openSandboxStore } from "../../src/stores/open-store.js";
import { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError } from "../../src/stores/sql/migrations.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, payoutBody, pixPayin } from "../fixtures.js";
import { ADMIN, ADMIN_TOKEN, newDatabase } from "./processes.js";

const NEWER = {
  version: SCHEMA_VERSION + 1,
  name: "a newer mock's column (harmless to an older one)",
  sql: "ALTER TABLE paykit_sandbox ADD COLUMN newer_note TEXT;",
};

const servers: MockServer[] = [];
const newer: { engine: MockEngine; store: SandboxStore }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) await server.close();
  for (const { engine, store } of newer.splice(0)) {
    engine.close();
    await store.close();
  }
});

/** The store's URL with a connection name, which the audit trigger records for every row written. */
const named = (url: string, app: string) => `${url}?application_name=${app}`;

/** A row trigger on every table of the store: who (application_name) wrote which table, in order. */
async function installAudit(url: string): Promise<void> {
  const db = await openPostgres(url, { max: 1 });
  try {
    await db.exec(`
      CREATE TABLE upgrade_audit (id BIGSERIAL PRIMARY KEY, app TEXT NOT NULL, tbl TEXT NOT NULL, op TEXT NOT NULL);
      CREATE FUNCTION upgrade_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO upgrade_audit (app, tbl, op) VALUES (current_setting('application_name'), TG_TABLE_NAME, TG_OP);
        RETURN NULL;
      END $$;`);
    const { rows } = await db.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'paykit\\_%'",
    );
    for (const { name } of rows)
      await db.exec(
        `CREATE TRIGGER upgrade_audit AFTER INSERT OR UPDATE OR DELETE ON ${name} FOR EACH ROW EXECUTE FUNCTION upgrade_audit_row()`,
      );
  } finally {
    await db.close();
  }
}

/** Rows written by each connection before and after the newer mock recorded its migration. */
async function writesAroundTheMigration(url: string) {
  const db = await openPostgres(url, { max: 1 });
  try {
    const { rows } = await db.query<{ app: string; before: number; after: number }>(
      `WITH bump AS (SELECT min(id) AS id FROM upgrade_audit WHERE tbl = 'paykit_schema_migrations')
       SELECT app, count(*) FILTER (WHERE a.id < bump.id)::int AS before,
              count(*) FILTER (WHERE a.id > bump.id)::int AS after
         FROM upgrade_audit a, bump WHERE bump.id IS NOT NULL GROUP BY app ORDER BY app`,
    );
    return Object.fromEntries(rows.map((r) => [r.app, { before: r.before, after: r.after }]));
  } finally {
    await db.close();
  }
}

describe("a rolling upgrade on a PostgreSQL store", () => {
  it("older processes refuse work once a newer one migrates the store, write nothing more, and the newer one serves", async () => {
    const url = await newDatabase("upgrade");
    const stderr = vi.spyOn(process.stderr, "write");
    const old = { adminToken: ADMIN_TOKEN, autoAdvance: false } as const;
    const a = await createMockServer({ ...old, store: { url: named(url, "paykit_old_a") } });
    servers.push(a);
    const b = await createMockServer({ ...old, store: { url: named(url, "paykit_old_b") } });
    servers.push(b);
    expect([a.store.role, b.store.role]).toEqual(["shared", "shared"]);
    const headers = { authorization: basic(a.account), "content-type": "application/json" };
    const earlier = await fetch(`${b.url}/payin`, {
      method: "POST",
      headers,
      body: JSON.stringify(pixPayin()),
    });
    expect(earlier.status).toBe(201);
    const earlierId = ((await earlier.json()) as { id: string }).id;
    await installAudit(url);

    // payins against both older processes while the newer one starts (and migrates)
    let stopped = false;
    const created: string[] = [];
    const statuses = new Set<number>();
    const load = (async () => {
      while (!stopped) {
        for (const target of [a, b]) {
          const res = await fetch(`${target.url}/payin`, {
            method: "POST",
            headers,
            body: JSON.stringify(pixPayin()),
          });
          statuses.add(res.status);
          if (res.status === 201) created.push(((await res.json()) as { id: string }).id);
          else await res.arrayBuffer();
        }
      }
    })();
    // the audit sees the older ones write first
    await expect.poll(() => created.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    const newerLog: string[] = [];
    const engineOptions = { adminToken: ADMIN_TOKEN, sharedSandbox: true, autoAdvance: false };
    const store = await openSandboxStore(
      { url: named(url, "paykit_new") },
      { migrations: [...MIGRATIONS, NEWER], log: (line) => newerLog.push(line) },
    );
    const c = { engine: createEngine({ ...engineOptions, sandboxStore: store }), store };
    newer.push(c);
    await expect
      .poll(() => [a.store.role, b.store.role], { timeout: 30_000 })
      .toEqual(["refused", "refused"]);
    stopped = true;
    await load;
    // only answers that say what happened: created, or refused (503)
    expect([...statuses]).toEqual(expect.arrayContaining([201]));
    expect([...statuses].filter((s) => s !== 201 && s !== 503)).toEqual([]);

    // the older ones refuse every kind of request, naming both versions and what to do
    for (const target of [a, b]) {
      for (const [path, init] of [
        ["/payin", { method: "POST", headers, body: JSON.stringify(pixPayin()) }],
        [`/payin/${earlierId}`, { headers }],
        ["/_mock/clock", { headers: ADMIN }],
      ] as const) {
        const res = await fetch(`${target.url}${path}`, init);
        expect(res.status, `${path} on an older process`).toBe(503);
        const body = (await res.json()) as { code: string; message: string };
        expect(body.code).toBe("INTERNAL_ERROR");
        expect(body.message).toContain(`schema is version ${SCHEMA_VERSION + 1}`);
        expect(body.message).toContain(`knows up to version ${SCHEMA_VERSION}`);
        expect(body.message).toMatch(/upgrade @paykit\/mock-server/);
      }
    }
    // each older process said so once, however many requests it refused
    const refusals = stderr.mock.calls
      .map(([chunk]) => String(chunk))
      .filter((l) => l.includes("serves nothing more"));
    expect(refusals).toHaveLength(2);
    expect(newerLog).toEqual([]);

    // the newer one serves everything, what the older ones committed included
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await c.engine.handle(new Request(`http://127.0.0.1${path}`, init));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await call(`/payin/${earlierId}`, { headers })).status).toBe(200);
    for (const id of created) expect((await call(`/payin/${id}`, { headers })).status, id).toBe(200);
    const payin = await call("/payin", { method: "POST", headers, body: JSON.stringify(pixPayin()) });
    expect(payin.status).toBe(201);
    expect(
      (await call(`/_mock/payins/${payin.body.id}/pay`, { method: "POST", headers: ADMIN })).status,
    ).toBe(200);
    expect((await call(`/payin/${payin.body.id}`, { headers })).body.status).toBe("APPROVED");
    expect(
      (await call("/payout", { method: "POST", headers, body: JSON.stringify(payoutBody()) })).status,
    ).toBe(201);

    // no row written by an older process after the migration; the audit saw their writes before it
    const writes = await writesAroundTheMigration(url);
    expect(writes.paykit_old_a?.before).toBeGreaterThan(0);
    expect(writes.paykit_old_a?.after).toBe(0);
    expect(writes.paykit_old_b?.after ?? 0).toBe(0);
    expect(writes.paykit_new?.after).toBeGreaterThan(0);

    // and an older process started now is refused at once
    const late = await createMockServer({ ...old, store: { url } }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(SchemaTooNewError);
  });
});
