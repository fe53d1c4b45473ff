// What a team sandbox's database and process list give away (docs/decisions/secret-keys-hashed.md): a
// secret key is kept only as its hash, whichever way the account was made (the default account with
// --default-keys, POST /_mock/accounts with keys made or given, `paykit-mock account create`), and
// the admin token read from PAYKIT_MOCK_ADMIN_TOKEN is in no process's command line. The whole database
// is read back as text, every table, and searched for each secret; then the same for generated key
// pairs, each used, refused with a wrong secret, and its account reset.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterEach, expect, it } from "vitest";
import { spawnGroup } from "../../../../scripts/processes.mjs";
import { createHttpControl } from "../../src/control/http-client.js";
import { openPostgres } from "../../src/stores/sql/sql-client.js";
import { mockCli } from "../cli-bundle.js";
import { basic, pixPayin } from "../fixtures.js";
import { ADMIN_TOKEN, killAll, newDatabase, startMockProcess } from "./processes.js";

const KEYS = { publicKey: "pk_test_atrest000001", secretKey: "sk_test_atrest_default_0000001" };

afterEach(killAll);

/** Every row of every table of the database, as text. */
async function everything(url: string): Promise<string> {
  const db = await openPostgres(url, { max: 1 });
  try {
    const tables = await db.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
    );
    const texts: string[] = [];
    for (const { name } of tables.rows) {
      const { rows } = await db.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM ${name} t`);
      texts.push(...rows.map((r) => r.row));
    }
    return texts.join("\n");
  } finally {
    await db.close();
  }
}

it("keeps no secret key and no admin token in the database, and shows the token in no command line", async () => {
  const url = await newDatabase("atrest");
  const a = await startMockProcess(KEYS, ["--store", url, "--shared"]);
  const control = createHttpControl({ url: a.url, adminToken: ADMIN_TOKEN });
  const secrets = [KEYS.secretKey, ADMIN_TOKEN];

  const made = await control.createAccount({ balance: 1_000 });
  secrets.push(made.secretKey);
  const given = "sk_test_atrest_given_00000000001";
  await control.createAccount({ publicKey: "pk_test_atrest000002", secretKey: given });
  secrets.push(given);

  // `paykit-mock account create` as the docs print it: the token from the environment
  const cli = spawnGroup(process.execPath, [await mockCli(), "account", "create", "--url", a.url, "--env"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PAYKIT_MOCK_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  let printed = "";
  cli.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
  const cmdline = readFileSync(`/proc/${cli.pid}/cmdline`, "utf8");
  await new Promise((resolve) => cli.once("exit", resolve));
  const cliSecret = /PAYKIT_SECRET_KEY=(\S+)/.exec(printed)?.[1];
  expect(cliSecret, printed).toMatch(/^sk_/);
  secrets.push(cliSecret!);
  expect(cmdline).not.toContain(ADMIN_TOKEN);

  // every key still works: the store checks the hash
  for (const [publicKey, secretKey] of [
    [KEYS.publicKey, KEYS.secretKey],
    [made.publicKey, made.secretKey],
    ["pk_test_atrest000002", given],
  ] as const) {
    const res = await fetch(`${a.url}/payin`, {
      method: "POST",
      headers: { authorization: basic({ publicKey, secretKey }), "content-type": "application/json" },
      body: JSON.stringify(pixPayin()),
    });
    expect(res.status, publicKey).toBe(201);
  }

  const stored = await everything(url);
  expect(stored).toContain(KEYS.publicKey); // the dump is the data
  for (const secret of secrets)
    expect(stored.includes(secret), `a secret in the database: ${secret}`).toBe(false);

  // nor in any process's command line (`ps`), the mock's included: it was given the token as an option
  // by the test harness, so only processes started the documented way are checked
  for (const secret of secrets)
    expect(a.stderr().includes(secret), `a secret in the mock's log: ${secret}`).toBe(false);
  const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  for (const secret of secrets.slice(2)) expect(ps.includes(secret), `a key in ps: ${secret}`).toBe(false);
}, 120_000);

it("keeps no generated secret key in the database, the mock's output or ps, however the key is used", async () => {
  const url = await newDatabase("atrestprop");
  const mock = await startMockProcess(KEYS, ["--store", url, "--shared"]);
  let stdout = "";
  mock.child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  const control = createHttpControl({ url: mock.url, adminToken: ADMIN_TOKEN });
  const secrets: string[] = [];
  // letters, digits and "_" after the prefix (the control API's rule), 8 to 100 of them
  const tail = (min: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_]{${min},100}$`));
  let n = 0;
  await fc.assert(
    fc.asyncProperty(tail(8), fc.boolean(), async (secretTail, reset) => {
      const publicKey = `pk_test_prop${String(++n).padStart(6, "0")}`;
      const secretKey = `sk_test_${secretTail}`;
      secrets.push(secretKey);
      const account = await control.createAccount({ publicKey, secretKey });
      const pay = (secret: string) =>
        fetch(`${mock.url}/payin`, {
          method: "POST",
          headers: {
            authorization: basic({ publicKey, secretKey: secret }),
            "content-type": "application/json",
          },
          body: JSON.stringify(pixPayin()),
        });
      expect((await pay(secretKey)).status).toBe(201);
      // a wrong secret that differs in its last character: refused, and written nowhere either
      const wrong = `${secretKey.slice(0, -1)}${secretKey.endsWith("x") ? "y" : "x"}`;
      secrets.push(wrong);
      expect((await pay(wrong)).status).toBe(401);
      if (reset) await control.resetAccount(account.accountId);
    }),
    { numRuns: 25 },
  );
  const stored = await everything(url);
  expect(stored).toContain("pk_test_prop000001"); // the dump is the data
  const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  for (const secret of secrets) {
    expect(stored.includes(secret), `a secret in the database: ${secret}`).toBe(false);
    expect(mock.stderr().includes(secret), `a secret in the mock's log: ${secret}`).toBe(false);
    expect(stdout.includes(secret), `a secret in the mock's output: ${secret}`).toBe(false);
    expect(ps.includes(secret), `a key in ps: ${secret}`).toBe(false);
  }
}, 120_000);
