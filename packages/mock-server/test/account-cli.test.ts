// `paykit-mock account create` end to end: the CLI in its own process against real mocks (a laptop's,
// a team's shared sandbox, one guarded by an admin token), and what it prints is what an app's .env needs.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import { createHttpControl, createMockServer, type MockServer, samplePayin } from "../src/index.js";
import {
  ACCOUNT_USAGE,
  DEFAULT_NEW_ACCOUNT_BALANCE,
  parseAccountArgs,
} from "../src/transports/node/account-command.js";
import { mockCli } from "./cli-bundle.js";
import { basic } from "./fixtures.js";
import { localServer, stopAll } from "./mcp-harness.js";

const TOKEN = "team-sandbox-token-35";
const WEBHOOK_SECRET = `whsec_${Buffer.from("account-create-webhook-secret-32").toString("base64")}`;

/** Runs `paykit-mock account …` to its end, with only `env` of the PAYKIT_* variables. */
async function account(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith("PAYKIT_")) delete clean[name];
  const child = spawnGroup(process.execPath, [await mockCli(), "account", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...clean, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  try {
    const [code] = (await once(child, "exit")) as [number | null];
    return { code, stdout, stderr };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}

/** The KEY=VALUE lines of a .env text (comments and blank lines skipped). */
function dotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    expect(at, `a .env line: ${line}`).toBeGreaterThan(0);
    vars[line.slice(0, at)] = line.slice(at + 1);
  }
  return vars;
}

describe("paykit-mock account create", () => {
  let laptop: MockServer;
  let team: MockServer;
  let guarded: MockServer;
  let notMock: Server;
  let notMockUrl: string;
  beforeAll(async () => {
    laptop = await createMockServer({ autoAdvance: false });
    team = await createMockServer({ autoAdvance: false, adminToken: TOKEN, sharedSandbox: true });
    guarded = await createMockServer({ autoAdvance: false, adminToken: TOKEN });
    notMock = createServer((_req, res) => res.writeHead(404).end("{}"));
    await new Promise<void>((resolve) => notMock.listen(0, "127.0.0.1", resolve));
    notMockUrl = `http://127.0.0.1:${(notMock.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await stopAll();
    await Promise.all([laptop?.close(), team?.close(), guarded?.close()]);
    notMock?.closeAllConnections();
    await new Promise((resolve) => notMock?.close(resolve));
  });

  it("prints a .env whose keys pay through the mock and whose secret verifies the account's deliveries", async () => {
    const run = await account(["create", "--url", laptop.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^Opened account acct_\w+ on http:\/\/127\.0\.0\.1:\d+, opening balance 1000000 cents, its deliveries signed\.$/m,
    );
    const env = dotenv(run.stdout.slice(run.stdout.indexOf("\n# Paykit mock account")));
    expect(Object.keys(env)).toEqual([
      "PAYKIT_BASE_URL",
      "PAYKIT_PUBLIC_KEY",
      "PAYKIT_SECRET_KEY",
      "PAYKIT_WEBHOOK_SECRET",
    ]);
    expect(env.PAYKIT_BASE_URL).toBe(laptop.url);
    const keys = { publicKey: env.PAYKIT_PUBLIC_KEY!, secretKey: env.PAYKIT_SECRET_KEY! };
    const view = await createHttpControl({ url: laptop.url, credentials: keys }).ownAccount();
    expect(view.balance.available).toBe(DEFAULT_NEW_ACCOUNT_BALANCE);
    const receiver = await localServer(() => ({ status: 204, body: "" }));
    const created = await fetch(`${env.PAYKIT_BASE_URL}/payin`, {
      method: "POST",
      headers: { authorization: basic(keys), "content-type": "application/json" },
      body: JSON.stringify(samplePayin("PIX", { webhookUrl: receiver.url })),
    });
    expect(created.status).toBe(201);
    const payin = (await created.json()) as { id: string };
    await laptop.control.payPayin(payin.id, { awaitWebhooks: true });
    const [sent] = receiver.received;
    expect(
      new Webhook(env.PAYKIT_WEBHOOK_SECRET!).verify(sent!.body, sent!.headers as Record<string, string>),
    ).toMatchObject({ id: payin.id, status: "APPROVED" });
  });

  it("--env prints the .env lines alone, ready to append", async () => {
    const run = await account(["create", "--url", laptop.url, "--env", "--balance", "0"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^# Paykit mock account acct_\w+ on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines.slice(1).map((line) => line.split("=")[0])).toEqual([
      "PAYKIT_BASE_URL",
      "PAYKIT_PUBLIC_KEY",
      "PAYKIT_SECRET_KEY",
      "PAYKIT_WEBHOOK_SECRET",
    ]);
    const env = dotenv(run.stdout);
    expect(env.PAYKIT_WEBHOOK_SECRET).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const keys = { publicKey: env.PAYKIT_PUBLIC_KEY!, secretKey: env.PAYKIT_SECRET_KEY! };
    const view = await createHttpControl({ url: laptop.url, credentials: keys }).ownAccount();
    expect(view).toMatchObject({ webhookSigned: true, balance: { available: 0 } });
  });

  it("opens an account on a team's shared sandbox without the admin token", async () => {
    const run = await account(["create", "--url", team.url, "--env"]);
    expect(run.code, run.stderr).toBe(0);
    const env = dotenv(run.stdout);
    const keys = { publicKey: env.PAYKIT_PUBLIC_KEY!, secretKey: env.PAYKIT_SECRET_KEY! };
    // its own keys drive it on the shared sandbox
    expect(await createHttpControl({ url: team.url, credentials: keys }).ownAccount()).toMatchObject({
      publicKey: keys.publicKey,
      webhookSigned: true,
    });
  });

  it("on a mock guarded by an admin token, takes it from PAYKIT_MOCK_ADMIN_TOKEN and never prints it", async () => {
    const refused = await account(["create", "--url", guarded.url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refused to open an account (401 UNAUTHORIZED");
    expect(refused.stderr).toContain("set PAYKIT_MOCK_ADMIN_TOKEN to it");
    const run = await account(["create", "--url", guarded.url, "--env"], { PAYKIT_MOCK_ADMIN_TOKEN: TOKEN });
    expect(run.code, run.stderr).toBe(0);
    expect(dotenv(run.stdout).PAYKIT_PUBLIC_KEY).toMatch(/^pk_test_/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });

  it("--webhook-secret signs with the receiver's secret, --unsigned with none", async () => {
    const yours = dotenv(
      (await account(["create", "--url", laptop.url, "--env", "--webhook-secret", WEBHOOK_SECRET])).stdout,
    );
    expect(yours.PAYKIT_WEBHOOK_SECRET).toBe(WEBHOOK_SECRET);
    const unsigned = await account(["create", "--url", laptop.url, "--env", "--unsigned"]);
    expect(unsigned.stdout).toContain("# no webhook secret: this account's deliveries are unsigned");
    const env = dotenv(unsigned.stdout);
    expect(env).not.toHaveProperty("PAYKIT_WEBHOOK_SECRET");
    const keys = { publicKey: env.PAYKIT_PUBLIC_KEY!, secretKey: env.PAYKIT_SECRET_KEY! };
    expect(await createHttpControl({ url: laptop.url, credentials: keys }).ownAccount()).toMatchObject({
      webhookSigned: false,
    });
  });

  it("refuses a URL that is not a mock, with exit status 2 and nothing opened", async () => {
    const run = await account(["create", "--url", notMockUrl]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${notMockUrl} is not a Paykit mock`);
    expect(run.stdout).toBe("");
  });

  it.each([
    [
      ["create", "--balance", "12.5"],
      /--balance must be a whole number of cents .*14990 = R\$ 149,90.*got 12\.5/,
    ],
    [["create", "--balance", "-1"], /--balance/],
    [["create", "--webhook-secret", "not-a-secret"], /--webhook-secret must be whsec_/],
    [["create", "--unsigned", "--webhook-secret", WEBHOOK_SECRET], /give one/],
    [["close"], /account takes one action, create; got close/],
    [["create", "--url", "ftp://127.0.0.1"], /--url must be an http\(s\) URL/],
  ])("refuses %j naming what to fix", (args, message) => {
    expect(() => parseAccountArgs(args)).toThrow(message);
  });

  it("answers --help, and no action, with its usage", async () => {
    expect((await account(["--help"])).stdout).toBe(ACCOUNT_USAGE);
    expect((await account([])).stdout).toBe(ACCOUNT_USAGE);
    expect(parseAccountArgs(["create"], { PAYKIT_MOCK_ADMIN_TOKEN: TOKEN })).toMatchObject({
      adminToken: TOKEN,
    });
  });
});
