// The two embedded engines evaluated for the mock's --data-dir, behind the same four calls the mock's
// write path needs: open a data directory, insert a payin in its own transaction (a unique
// referenceId per account enforced by the engine), read one by id, list an account's newest page.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

const PAYINS = `CREATE TABLE IF NOT EXISTS payins (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  reference_id TEXT NOT NULL,
  status TEXT NOT NULL,
  amount BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL,
  UNIQUE (account_id, reference_id)
)`;
const BY_ACCOUNT =
  "CREATE INDEX IF NOT EXISTS payins_by_account ON payins (account_id, created_at DESC, id DESC)";

/** PGlite: PostgreSQL compiled to WASM, its data directory on the Node file system. */
export async function openPglite(dir) {
  const { PGlite } = await import("@electric-sql/pglite");
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(join(dir, "pglite"));
  await db.exec(`${PAYINS}; ${BY_ACCOUNT};`);
  return {
    name: "PGlite 0.5.16",
    async insert(row) {
      await db.transaction(async (tx) => {
        await tx.query(
          "INSERT INTO payins (id, account_id, reference_id, status, amount, created_at, record) VALUES ($1,$2,$3,$4,$5,$6,$7)",
          [row.id, row.accountId, row.referenceId, row.status, row.amount, row.createdAt, row.record],
        );
      });
    },
    async insertMany(rows) {
      await db.transaction(async (tx) => {
        for (const row of rows) {
          await tx.query(
            "INSERT INTO payins (id, account_id, reference_id, status, amount, created_at, record) VALUES ($1,$2,$3,$4,$5,$6,$7)",
            [row.id, row.accountId, row.referenceId, row.status, row.amount, row.createdAt, row.record],
          );
        }
      });
    },
    async get(id) {
      return (await db.query("SELECT record FROM payins WHERE id = $1", [id])).rows[0]?.record;
    },
    async page(accountId, limit) {
      return (
        await db.query(
          "SELECT record FROM payins WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
          [accountId, limit],
        )
      ).rows;
    },
    async count() {
      return Number((await db.query("SELECT count(*)::int AS n FROM payins")).rows[0].n);
    },
    close: () => db.close(),
  };
}

/** node-sqlite3-wasm: SQLite compiled to WASM with a VFS over Node's fs (rollback journal, synchronous=FULL). */
export async function openSqlite(dir) {
  const { Database } = require("node-sqlite3-wasm");
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, "mock.sqlite"));
  db.exec("PRAGMA synchronous = FULL");
  db.exec(`${PAYINS}; ${BY_ACCOUNT};`);
  return {
    name: "node-sqlite3-wasm 0.8.60",
    async insert(row) {
      db.exec("BEGIN IMMEDIATE");
      try {
        db.run(
          "INSERT INTO payins (id, account_id, reference_id, status, amount, created_at, record) VALUES (?,?,?,?,?,?,?)",
          [row.id, row.accountId, row.referenceId, row.status, row.amount, row.createdAt, row.record],
        );
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    async insertMany(rows) {
      db.exec("BEGIN IMMEDIATE");
      for (const row of rows) {
        db.run(
          "INSERT INTO payins (id, account_id, reference_id, status, amount, created_at, record) VALUES (?,?,?,?,?,?,?)",
          [row.id, row.accountId, row.referenceId, row.status, row.amount, row.createdAt, row.record],
        );
      }
      db.exec("COMMIT");
    },
    async get(id) {
      return db.get("SELECT record FROM payins WHERE id = ?", [id])?.record;
    },
    async page(accountId, limit) {
      return db.all(
        "SELECT record FROM payins WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
        [accountId, limit],
      );
    },
    async count() {
      return db.get("SELECT count(*) AS n FROM payins").n;
    },
    async close() {
      db.close();
    },
  };
}

/** The engines by the name the CLI of the child process takes. */
export const ENGINES = { pglite: openPglite, sqlite: openSqlite };

/** A payin row the size of the mock's (a PIX payin with customer and items is ~1.4 KB of JSON). */
export function payinRow(accountId, n) {
  const id = `pi_${accountId.slice(5)}${String(n).padStart(22, "0")}`;
  const createdAt = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  const record = JSON.stringify({
    id,
    status: "PENDING",
    paymentMethod: "PIX",
    amount: 10_000 + (n % 1000),
    referenceId: `order-${n}`,
    customer: {
      name: "Maria Souza",
      email: "maria@example.com",
      document: "52998224725",
      phone: "+5511999990000",
      address: {
        street: "Rua das Flores",
        number: "123",
        city: "São Paulo",
        state: "SP",
        zipCode: "01001000",
      },
    },
    items: [{ name: "Camiseta", quantity: 2, unitPrice: 5_000 }],
    pix: { qrcode: "00020126580014br.gov.bcb.pix0136".padEnd(400, "0"), expiresAt: createdAt },
    createdAt,
    updatedAt: createdAt,
  });
  return {
    id,
    accountId,
    referenceId: `order-${n}`,
    status: "PENDING",
    amount: 10_000 + (n % 1000),
    createdAt,
    record,
  };
}
