// What the suites over the durable stores start from: a new, empty store of each kind (a PGlite data
// directory, removed when the test process ends however it ends; a database of its own on the run's
// PostgreSQL), and a webhook receiver whose answer the test sets.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeOnExit } from "../../../../scripts/processes.mjs";
import { sharedPostgresUrl } from "../../../../tests/support/services.js";
import type { MockServerOptions } from "../../src/index.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";

/** The durable stores a mock keeps its state in. */
export type StoreKind = "pglite" | "postgres";

let databases = 0;

/** A new empty store of a kind, its directory or database named after `prefix`. */
export async function newStore(kind: StoreKind, prefix: string): Promise<MockServerOptions["store"]> {
  if (kind === "pglite") return { dataDir: removeOnExit(mkdtempSync(join(tmpdir(), `paykit-${prefix}-`))) };
  const url = await sharedPostgresUrl();
  const name = `${prefix.replaceAll("-", "_")}_${process.pid}_${++databases}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.close();
  return { url: url.replace(/\/[^/]*$/, `/${name}`) };
}

/** A webhook receiver answering what the test sets (500 at first), recording each delivery's id and body. */
export async function webhookReceiver() {
  const received: { webhookId: string; body: { id: string; status: string }; answered: number }[] = [];
  let status = 500;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({
        webhookId: String(req.headers["webhook-id"]),
        body: JSON.parse(body),
        answered: status,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer(code: number) {
      status = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
