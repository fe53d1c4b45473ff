// The database of a PostgreSQL store goes away and comes back (`pg_ctl stop -m immediate`, then a start)
// under two `paykit-mock` processes: each logs one line when it loses the store and one when it is back,
// not one per retry, and both serve again afterwards with what was stored before. The server asks for a
// password (scram-sha-256) and the processes have none on their command line: one gets it from
// PGPASSWORD, the other everything from the libpq variables (`--store postgres:///sandbox`).
import { writeFileSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createMockServer } from "../../src/index.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { basic, pixPayin } from "../fixtures.js";
import { type PrivatePostgres, startPrivatePostgres } from "./private-postgres.js";
import { ADMIN_TOKEN, killAll, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_outage0001", secretKey: "sk_test_outage0001" };
const PASSWORD = "sandbox-password-not-on-any-command-line";

let postgres: PrivatePostgres | undefined;
afterEach(killAll);
afterAll(async () => {
  await postgres?.close();
});

/** A role and database that need a password over TCP; the superuser keeps trust, for this test only. */
async function passwordProtected(server: PrivatePostgres): Promise<{ host: string; port: string }> {
  const admin = await openPostgres(server.url, { max: 1 });
  try {
    await admin.query(`CREATE ROLE paykit LOGIN PASSWORD '${PASSWORD}'`);
    await admin.query("CREATE DATABASE sandbox OWNER paykit");
    const { rows } = await admin.query<{ hba_file: string }>("SHOW hba_file");
    writeFileSync(
      rows[0]!.hba_file,
      "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
    );
    await admin.query("SELECT pg_reload_conf()");
  } finally {
    await admin.close();
  }
  const url = new URL(server.url);
  return { host: url.hostname, port: url.port };
}

const lines = (text: string, pattern: RegExp) => text.split("\n").filter((line) => pattern.test(line));

describe("a PostgreSQL store whose database restarts", () => {
  it("logs one line per state change in each process, and takes the password from the libpq variables", async () => {
    postgres = await startPrivatePostgres();
    const { host, port } = await passwordProtected(postgres);

    // no password anywhere: refused with a message that names the store, not a secret
    const refused = await createMockServer({
      adminToken: ADMIN_TOKEN,
      store: { url: `postgres://paykit:wrong-password@${host}:${port}/sandbox` },
    }).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(
      /could not connect to the PostgreSQL store at postgres:\/\/paykit@/,
    );
    expect((refused as Error).message).toMatch(/password authentication failed/);
    expect((refused as Error).message).not.toContain("wrong-password");

    const one = await startMockProcess(KEYS, ["--store", `postgres://paykit@${host}:${port}/sandbox`], {
      PGPASSWORD: PASSWORD,
    });
    const two = await startMockProcess(KEYS, ["--store", "postgres:///sandbox"], {
      PGHOST: host,
      PGPORT: port,
      PGUSER: "paykit",
      PGPASSWORD: PASSWORD,
    });
    const headers = { authorization: basic(KEYS), "content-type": "application/json" };
    const create = (url: string) =>
      fetch(`${url}/payin`, { method: "POST", headers, body: JSON.stringify(pixPayin()) });
    const before = await create(two.url);
    expect(before.status).toBe(201);
    const { id } = (await before.json()) as { id: string };

    await postgres.stopImmediately();
    // down long enough for many retries (one every 250 ms) in each process
    for (const mock of [one, two])
      await expect
        .poll(() => lines(mock.stderr(), /lost the PostgreSQL store/).length, { timeout: 30_000 })
        .toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await postgres.start();

    for (const mock of [one, two]) {
      await expect
        .poll(() => lines(mock.stderr(), /PostgreSQL store .* is back/).length, { timeout: 60_000 })
        .toBe(1);
      await expect.poll(async () => (await create(mock.url)).status, { timeout: 60_000 }).toBe(201);
      expect((await fetch(`${mock.url}/payin/${id}`, { headers })).status).toBe(200);
    }
    for (const mock of [one, two]) {
      const log = mock.stderr();
      expect(lines(log, /lost the PostgreSQL store/), log).toHaveLength(1);
      expect(lines(log, /is back/), log).toHaveLength(1);
      expect(lines(log, /unexpected error/), log).toEqual([]);
      expect(log).not.toContain(PASSWORD);
    }
  });
});
