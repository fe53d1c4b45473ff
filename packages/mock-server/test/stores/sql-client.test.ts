// The PostgreSQL client of a shared store's process: its sessions end a transaction left idle (a
// process stopped mid-request holds no lock for long), set at connection start beside whatever the URL
// asks of the server, with no query racing the pool's first one on a new connection.
import { afterEach, expect, it } from "vitest";
import {
  CommitUnknownError,
  openPostgres,
  type SqlDatabase,
  TransactionEndedError,
} from "../../src/stores/sql/sql-client.js";
import { newDatabase } from "./processes.js";

const opened: SqlDatabase[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

const setting = async (db: SqlDatabase, name: string) =>
  (await db.query<{ value: string }>(`SELECT current_setting('${name}') AS value`)).rows[0]?.value;

it("ends a transaction idle for the given time, on every connection of the pool, with the URL's own options kept", async () => {
  const url = await newDatabase("client");
  const withOptions = `${url}?options=${encodeURIComponent("-c statement_timeout=4321")}`;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on("warning", onWarning);
  try {
    const db = await openPostgres(withOptions, { max: 3, idleInTransactionMs: 1500 });
    opened.push(db);
    // three connections at once: each new one answers its first query with the setting in place
    const values = await Promise.all([1, 2, 3].map(() => setting(db, "idle_in_transaction_session_timeout")));
    expect(values).toEqual(["1500ms", "1500ms", "1500ms"]);
    expect(await setting(db, "statement_timeout")).toBe("4321ms");

    // the server ends a transaction left idle past it
    const tx = await (db.begin as NonNullable<SqlDatabase["begin"]>)();
    await tx.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await expect(tx.query("SELECT 1")).rejects.toThrow();
    await tx.rollback();
    expect(await setting(db, "idle_in_transaction_session_timeout")).toBe("1500ms");
  } finally {
    process.off("warning", onWarning);
  }
  expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
});

it("leaves the server's default when no limit is asked for (one process, or a tool's own reads)", async () => {
  const db = await openPostgres(await newDatabase("client"), { max: 1 });
  opened.push(db);
  expect(await setting(db, "idle_in_transaction_session_timeout")).toBe("0");
});

it("tells a transaction the server ended for idling before its commit: nothing of it is kept (not 'may be committed')", async () => {
  const url = await newDatabase("client");
  const db = await openPostgres(url, { max: 2, idleInTransactionMs: 200 });
  opened.push(db);
  await db.exec("CREATE TABLE t (n int)");
  const begin = db.begin as NonNullable<SqlDatabase["begin"]>;
  for (const commitWith of ["batch", "commit"] as const) {
    const tx = await begin();
    await tx.query("INSERT INTO t VALUES (1)");
    await new Promise((resolve) => setTimeout(resolve, 800));
    const committed =
      commitWith === "batch"
        ? tx.batch([{ text: "INSERT INTO t VALUES (2)" }], { commit: true })
        : tx.commit();
    const error = await committed.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, commitWith).toBeInstanceOf(TransactionEndedError);
    expect(error).not.toBeInstanceOf(CommitUnknownError);
    expect(String((error as Error).message)).toMatch(/idle-in-transaction timeout/);
    await tx.rollback();
  }
  expect((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM t")).rows[0]?.n).toBe("0");
});
