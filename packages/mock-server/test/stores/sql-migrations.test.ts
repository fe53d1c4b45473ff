// The SQL stores' schema on both durable engines (PGlite for --data-dir, PostgreSQL from Debian's
// package on loopback for --store): created on an empty database, a no-op when current, applied once
// when several processes start at once, and refused when a newer mock migrated the database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../../scripts/processes.mjs";
import { sharedPostgresUrl } from "../../../../tests/support/services.js";
import {
  MIGRATION_LOCK,
  MIGRATIONS,
  migrate,
  SCHEMA_VERSION,
  SchemaTooNewError,
} from "../../src/stores/sql/migrations.js";
import { openPglite, openPostgres, type SqlDatabase } from "../../src/stores/sql/sql-client.js";

let postgres: { url: string };
const dirs: string[] = [];
beforeAll(async () => {
  postgres = { url: await sharedPostgresUrl() };
}, 120_000);
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

let databases = 0;
/** The server's URL with another database name. */
const databaseUrl = (name: string) => postgres.url.replace(/\/[^/]*$/, `/${name}`);
/** A fresh, empty database on each engine. */
const ENGINES = {
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-pglite-"));
    dirs.push(dir);
    return openPglite(dir);
  },
  postgres: async () => {
    const name = `mig_${process.pid}_${++databases}`;
    const admin = await openPostgres(postgres.url, { max: 1 });
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.close();
    return openPostgres(databaseUrl(name));
  },
} satisfies Record<string, () => Promise<SqlDatabase>>;

async function tables(db: SqlDatabase): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  );
  return rows.map((r) => r.name);
}

describe.each(Object.keys(ENGINES))("schema migrations on %s", (engine) => {
  it("creates every table on an empty database, then does nothing when current", async () => {
    const db = await ENGINES[engine as keyof typeof ENGINES]();
    try {
      expect(await migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
      expect(await tables(db)).toEqual([
        "paykit_accounts",
        "paykit_deliveries",
        "paykit_due",
        "paykit_faults",
        "paykit_listeners",
        "paykit_payins",
        "paykit_payouts",
        "paykit_pix_keys",
        "paykit_sandbox",
        "paykit_schema_migrations",
      ]);
      expect(await migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    } finally {
      await db.close();
    }
  });

  it("applies only the missing migrations, in order", async () => {
    const db = await ENGINES[engine as keyof typeof ENGINES]();
    try {
      await migrate(db);
      const next = {
        version: SCHEMA_VERSION + 1,
        name: "test column",
        sql: "ALTER TABLE paykit_sandbox ADD COLUMN note TEXT;",
      };
      expect(await migrate(db, [...MIGRATIONS, next])).toEqual({
        from: SCHEMA_VERSION,
        to: SCHEMA_VERSION + 1,
      });
      const { rows } = await db.query<{ version: number }>(
        "SELECT version FROM paykit_schema_migrations ORDER BY 1",
      );
      expect(rows.map((r) => r.version)).toEqual([...MIGRATIONS.map((m) => m.version), SCHEMA_VERSION + 1]);
    } finally {
      await db.close();
    }
  });

  it("refuses a database a newer mock migrated, and leaves it untouched", async () => {
    const db = await ENGINES[engine as keyof typeof ENGINES]();
    try {
      await migrate(db);
      await db.query("INSERT INTO paykit_schema_migrations (version, name) VALUES ($1, 'from the future')", [
        SCHEMA_VERSION + 5,
      ]);
      const error = await migrate(db).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaTooNewError);
      expect(error).toMatchObject({ found: SCHEMA_VERSION + 5, known: SCHEMA_VERSION });
      expect((error as Error).message).toMatch(/upgrade @paykit\/mock-server/);
    } finally {
      await db.close();
    }
  });

  it("keeps a payout's referenceId unique per account and a balance from going negative (constraints)", async () => {
    const db = await ENGINES[engine as keyof typeof ENGINES]();
    try {
      await migrate(db);
      await db.query(
        `INSERT INTO paykit_accounts (id, public_key, secret_key_hash, settings, opening_balance)
         VALUES ('acct_a', 'pk_test_a', 'h', '{}', 50), ('acct_b', 'pk_test_b', 'h', '{}', 50)`,
      );
      const payout = (id: string, account: string, ref: string, epoch = 0) =>
        db.query(
          "INSERT INTO paykit_payouts (id, account_id, epoch, reference_id, status, amount, created_ms, record) VALUES ($1, $2, $3, $4, 'PENDING', 100, 0, '{}')",
          [id, account, epoch, ref],
        );
      await payout("po_1", "acct_a", "withdraw-1");
      await payout("po_2", "acct_b", "withdraw-1"); // another account may reuse it
      await payout("po_3", "acct_a", "withdraw-1", 1); // and the account after a reset (a new epoch)
      await expect(payout("po_4", "acct_a", "withdraw-1")).rejects.toMatchObject({
        code: "23505",
        constraint: "paykit_payouts_reference_unique",
      });
      // the available balance (opening + approved net - reserved - debited) never goes below zero
      await expect(
        db.query("UPDATE paykit_accounts SET debited = debited + 100 WHERE id = 'acct_a'"),
      ).rejects.toMatchObject({
        code: "23514",
        constraint: "paykit_accounts_available",
      });
      await db.query("UPDATE paykit_accounts SET debited = debited + 50 WHERE id = 'acct_a'");
    } finally {
      await db.close();
    }
  });
});

describe("a process starting on a current schema beside others serving it", () => {
  it("takes no lock: a transaction of another process (its shared hold on the migration lock) does not hold its start", async () => {
    const db = await ENGINES.postgres();
    try {
      await migrate(db);
      const name = (await db.query<{ name: string }>("SELECT current_database() AS name")).rows[0]!.name;
      const serving = await openPostgres(databaseUrl(name), { max: 1 });
      const tx = await (serving.begin as NonNullable<SqlDatabase["begin"]>)();
      try {
        // what every request's transaction holds until it commits
        await tx.query("SELECT pg_advisory_xact_lock_shared($1)", [MIGRATION_LOCK]);
        const started = await Promise.race([
          migrate(db).then(() => "started"),
          new Promise((resolve) => setTimeout(() => resolve("waited"), 5_000)),
        ]);
        expect(started).toBe("started");
      } finally {
        await tx.rollback();
        await serving.close();
      }
    } finally {
      await db.close();
    }
  });
});

describe("schema migrations on postgres from several processes at once", () => {
  it("five mock processes starting together on an empty database: one migration, no error", async () => {
    const db = await ENGINES.postgres();
    const { rows } = await db.query<{ name: string }>("SELECT current_database() AS name");
    const url = databaseUrl(rows[0]?.name ?? "");
    const script = `
      const { migrate } = await import(${JSON.stringify(new URL("../../src/stores/sql/migrations.ts", import.meta.url).href)});
      const { openPostgres } = await import(${JSON.stringify(new URL("../../src/stores/sql/sql-client.ts", import.meta.url).href)});
      const db = await openPostgres(process.argv.at(-1));
      await db.query("SELECT 1");
      // connected: wait for the go, so that every process migrates at the same moment
      console.log("ready");
      await new Promise((resolve) => process.stdin.once("data", resolve));
      console.log(JSON.stringify(await migrate(db)));
      await db.close();`;
    try {
      const children = Array.from({ length: 5 }, () => {
        const child = spawnGroup(
          process.execPath,
          ["--import", "tsx", "--input-type=module", "-e", script, url],
          {
            stdio: ["pipe", "pipe", "pipe"],
          },
        );
        let out = "";
        let err = "";
        child.stderr.on("data", (c) => {
          err += c;
        });
        const ready = new Promise<void>((resolve) => {
          child.stdout.on("data", (c) => {
            out += c;
            if (out.startsWith("ready\n")) resolve();
          });
        });
        // "close", not "exit": a child's last stdout chunk may still be unread when it exits (seen on a
        // busy machine: an empty outcome)
        const done = new Promise<string>((resolve, reject) =>
          child.on("close", (code) =>
            code === 0 ? resolve(out.slice("ready\n".length).trim()) : reject(new Error(err)),
          ),
        );
        return { child, ready, done };
      });
      await Promise.all(children.map((c) => c.ready));
      for (const { child } of children) child.stdin.end("go\n");
      const outcomes = await Promise.all(children.map((c) => c.done));
      const parsed = outcomes.map((o) => JSON.parse(o) as { from: number; to: number });
      expect(parsed.filter((o) => o.from === 0)).toHaveLength(1);
      expect(parsed.every((o) => o.to === SCHEMA_VERSION)).toBe(true);
    } finally {
      await db.close();
    }
  });
});
