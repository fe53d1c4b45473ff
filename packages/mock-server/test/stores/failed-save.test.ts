// A save that fails: the requests whose changes it held answer 503 and say they are NOT stored, no
// webhook leaves for them, and the engine goes back to what the store holds: read back in place (one
// process on PGlite; on PostgreSQL each request is a transaction that rolls back, and
// database-restart.test.ts runs it for real). The store is PGlite; only the writer in front of it is told to fail.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createEngine, type MockEngine } from "../../src/index.js";
import { type AfterFailedSave, type BatchWriter, Persister } from "../../src/stores/persister.js";
import { migrate } from "../../src/stores/sql/migrations.js";
import { CommitUnknownError, openPglite, type SqlDatabase } from "../../src/stores/sql/sql-client.js";
import { type SaveBatch, SqlStateStore } from "../../src/stores/sql/state-store.js";
import { basic, pixPayin } from "../fixtures.js";

const HOOK = "http://receiver.test/hook";

let dir: string;
let db: SqlDatabase;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "paykit-failed-save-"));
  db = await openPglite(dir);
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A writer in front of the real store that fails the next `failing` saves with `error()`. */
class FlakyWriter implements BatchWriter {
  failing = 0;
  error: () => Error = () => new Error("the store is down");
  constructor(readonly store: SqlStateStore) {}
  async write(batch: SaveBatch): Promise<void> {
    if (this.failing > 0) {
      this.failing -= 1;
      throw this.error();
    }
    await this.store.write(batch);
  }
}

let open: { engine: MockEngine; persister: Persister } | null = null;
afterEach(() => {
  open?.persister.stop();
  open?.engine.close();
  open = null;
});

/** An engine on an emptied store, recording every webhook it sends as (webhook-id, body). */
async function start(afterFailure?: (store: SqlStateStore) => AfterFailedSave) {
  await db.exec("TRUNCATE paykit_sandbox, paykit_accounts CASCADE");
  const store = new SqlStateStore(db);
  const writer = new FlakyWriter(store);
  const errors: unknown[] = [];
  const persister = new Persister(
    writer,
    null,
    (error) => errors.push(error),
    afterFailure?.(store) ?? { reload: () => store.load() },
  );
  const sent: { webhookId: string; body: { id: string; status: string } }[] = [];
  const engine = createEngine({
    autoAdvance: false,
    persistence: persister,
    fetch: async (_url, init) => {
      const headers = init.headers as Record<string, string>;
      sent.push({ webhookId: headers["webhook-id"] as string, body: JSON.parse(String(init.body)) });
      return new Response(null, { status: 200 });
    },
  });
  open = { engine, persister };
  await persister.saved();
  const auth = { authorization: basic(engine.account), "content-type": "application/json" };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await engine.handle(
      new Request(`http://mock.test${path}`, {
        method,
        headers: auth,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body: (await res.json()) as { id: string; status: string; code: string; message: string },
    };
  };
  const createPayin = async () => {
    const created = await call("POST", "/payin", pixPayin({ webhookUrl: HOOK }));
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  return { store, writer, errors, persister, engine, sent, call, createPayin };
}

it("a pay whose save fails answers 503 NOT stored, sends nothing, and the store's PENDING is served again", async () => {
  const t = await start();
  const id = await t.createPayin();

  t.writer.failing = 1;
  const refused = await t.call("POST", `/_mock/payins/${id}/pay`);
  expect(refused).toMatchObject({ status: 503, retryAfter: "1", body: { code: "INTERNAL_ERROR" } });
  expect(refused.body.message).toContain("NOT stored");
  expect(t.errors).toHaveLength(1);

  await expect.poll(() => t.persister.reloads, { timeout: 30_000 }).toBe(1);
  expect((await t.call("GET", `/payin/${id}`)).body.status).toBe("PENDING");
  await t.call("POST", "/_mock/webhooks/flush");
  expect(t.sent.filter((s) => s.body.id === id)).toEqual([]);

  // paid again, for real this time: one event, under the webhook-id the store holds for it
  expect((await t.call("POST", `/_mock/payins/${id}/pay`)).status).toBe(200);
  await t.call("POST", "/_mock/webhooks/flush");
  const approved = t.sent.filter((s) => s.body.id === id);
  expect(approved.map((s) => s.body.status)).toEqual(["APPROVED"]);
  const saved = (await t.store.load())?.deliveries.filter((d) => d.resourceId === id) ?? [];
  expect(saved.map((d) => [d.webhookId, d.status])).toEqual([[approved[0]?.webhookId, "APPROVED"]]);
});

it("a save cut off while committing says the outcome is unknown, and a later request says NOT stored", async () => {
  let gaveUp = 0;
  const t = await start(() => ({ giveUp: () => (gaveUp += 1) }));
  const id = await t.createPayin();

  t.writer.error = () => new CommitUnknownError("the connection ended while committing");
  t.writer.failing = 1;
  const cut = await t.call("POST", `/_mock/payins/${id}/pay`);
  expect(cut.status).toBe(503);
  expect(cut.body.message).toContain("may or may not be stored");
  expect(gaveUp).toBe(1);

  // handed over: this engine answers nothing as done any more, reads included, and sends nothing
  const later = await t.call("GET", `/payin/${id}`);
  expect(later.status).toBe(503);
  expect(later.body.message).toContain("NOT stored");
  await t.call("POST", "/_mock/webhooks/flush");
  expect(t.sent).toEqual([]);
  expect(t.persister.reloads).toBe(0);
});

it("a save that keeps failing is read back again, paused, until the store takes it", async () => {
  const t = await start();
  const id = await t.createPayin();
  // the pay's save fails, and so does the save right after the first reload
  t.writer.failing = 2;
  expect((await t.call("POST", `/_mock/payins/${id}/pay`)).status).toBe(503);
  await expect.poll(() => t.persister.reloads, { timeout: 30_000 }).toBe(2);
  expect((await t.call("GET", `/payin/${id}`)).body.status).toBe("PENDING");
  expect((await t.call("POST", `/_mock/payins/${id}/pay`)).status).toBe(200);
  expect(t.errors).toHaveLength(2);
});
