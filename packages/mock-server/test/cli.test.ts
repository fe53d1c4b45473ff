import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import { createMockServer } from "../src/index.js";
import { COMMANDS, DOCTOR_USAGE, parseCliArgs, USAGE } from "../src/transports/node/args.js";
import { mockCli } from "./cli-bundle.js";
import { basic } from "./fixtures.js";

// The CLI from src/, bundled into one file run by node itself (cli-bundle.ts): a signal reaches the
// CLI's own handlers (the tsx command ran a second process that relayed signals, which raced with the
// CLI's SIGINT handler on a loaded machine: exit 130 instead of a clean stop).
let cli: string;
beforeAll(async () => {
  cli = await mockCli();
});

// A process group (scripts/processes.mjs): killed with this test process however it ends.
function start(args: string[]): { child: ChildProcess; lines: AsyncIterableIterator<string> } {
  const child = spawnGroup(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, lines };
}

describe("paykit-mock (docs/decisions/mock-server-starting.md)", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the listening line and the default keys, serves the API and stops on SIGTERM", async () => {
    const { child, lines } = start([
      "--port",
      "0",
      "--manual",
      "--default-keys",
      "pk_test_demo1234:sk_test_demo5678",
      "--webhook-secret",
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ]);
    children.push(child);
    const first = (await lines.next()).value as string;
    expect(first).toMatch(/^Paykit mock listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.slice("Paykit mock listening on ".length);
    const rest: string[] = [];
    for (let i = 0; i < 4; i += 1) rest.push((await lines.next()).value as string);
    expect(rest.join("\n")).toContain("pk_test_demo1234");
    // the secret key it was given is not printed back: the user has it
    expect(rest.join("\n")).not.toContain("sk_test_demo5678");
    expect(rest[2]).toBe("  secret key: the one given in --default-keys (not printed)");
    expect(rest[3]).toBe("  webhook secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const res = await fetch(`${url}/payout`, {
      headers: { authorization: basic({ publicKey: "pk_test_demo1234", secretKey: "sk_test_demo5678" }) },
    });
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  }, 120_000);

  it.each([
    [[], null],
    [
      ["--retention", "12h"],
      "Retention: accounts unused for 12h are removed with their records (--retention off keeps them)",
    ],
    [
      ["--retention", "120m"],
      "Retention: accounts unused for 2h are removed with their records (--retention off keeps them)",
    ],
  ])(
    "says in its banner what --retention %j removes",
    async (extra: string[], expected: string | null) => {
      const { child, lines } = start(["--port", "0", ...extra]);
      children.push(child);
      const printed: string[] = [];
      for (let i = 0; i < (expected === null ? 6 : 7); i += 1)
        printed.push((await lines.next()).value as string);
      expect(printed).toContain("State: in this process's memory (gone when it stops)");
      expect(printed.filter((line) => line.startsWith("Retention: "))).toEqual(
        expected === null ? [] : [expected],
      );
      child.kill("SIGTERM");
      await once(child, "exit");
    },
    120_000,
  );

  it.each([[[]], [["--shared"]]])(
    "guards the control API with --admin-token %j",
    async (extra: string[]) => {
      const { child, lines } = start(["--port", "0", "--admin-token", "secret-token-1", ...extra]);
      children.push(child);
      const url = ((await lines.next()).value as string).slice("Paykit mock listening on ".length);
      const printed: string[] = [];
      for (let i = 0; i < (extra.length > 0 ? 6 : 5); i += 1)
        printed.push((await lines.next()).value as string);
      expect(printed.some((line) => line.startsWith("Shared sandbox: "))).toBe(extra.length > 0);
      expect(printed).toContain("State: in this process's memory (gone when it stops)");
      const admin = { authorization: "Bearer secret-token-1" };
      expect((await fetch(`${url}/_mock/clock`)).status).toBe(401);
      expect((await fetch(`${url}/_mock/clock`, { headers: admin })).status).toBe(200);
      // A shared sandbox: a CI run makes its own account and drives it with its own keys, not everyone's clock.
      const created = await fetch(`${url}/_mock/accounts`, { method: "POST" });
      expect(created.status).toBe(extra.length > 0 ? 201 : 401);
      if (created.status === 201) {
        const keys = (await created.json()) as { accountId: string; publicKey: string; secretKey: string };
        const own = { authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}` };
        expect((await fetch(`${url}/_mock/accounts/${keys.accountId}/clock`, { headers: own })).status).toBe(
          200,
        );
        expect((await fetch(`${url}/_mock/clock`, { headers: own })).status).toBe(403);
      }
      child.kill("SIGINT");
      expect((await once(child, "exit"))[0]).toBe(0);
    },
    120_000,
  );

  it("answers /_mock under the --allowed-hosts names, and refuses another name with the flag to add", async () => {
    const { child, lines } = start(["--port", "0", "--allowed-hosts", "mock.team.example"]);
    children.push(child);
    const url = new URL(((await lines.next()).value as string).slice("Paykit mock listening on ".length));
    const statusFor = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { hostname: url.hostname, port: url.port, path: "/_mock/clock", headers: { host }, setHost: false },
          (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect((await statusFor("mock.team.example")).status).toBe(200);
    const refused = await statusFor("other.team.example");
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).message).toContain("--allowed-hosts other.team.example");
    child.kill("SIGTERM");
    expect((await once(child, "exit"))[0]).toBe(0);
  }, 120_000);

  it.each([
    [["--host", "0.0.0.0"], /set PAYKIT_MOCK_ADMIN_TOKEN=<token> \(or add --admin-token <token>/],
    [["--port", "70000"], /--port/],
    [["--default-keys", "pk_live_x:sk_live_y"], /pk_test_/],
    [["--webhook-secret", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], /whsec_/],
    [["--webhook-secret", "whsec_short"], /whsec_/],
    [["--bogus"], /bogus/],
    [["--admin-token", " secret-token-1"], /whitespace/],
    [["--admin-token", "secret-token-1\n"], /whitespace/],
    [["--public-url", "ftp://mock.test"], /http/],
    [["--public-url", "not a url"], /absolute/],
    [["--allowed-hosts", "https://mock.team.example"], /--allowed-hosts: .*without scheme or port/],
    [["--allowed-hosts", "mock.team.example:8080"], /--allowed-hosts: .*without scheme or port/],
    [["--allowed-hosts", " , "], /--allowed-hosts needs host names/],
    [["--shared"], /--shared needs an admin token, .*set PAYKIT_MOCK_ADMIN_TOKEN/],
    [["--store", "postgres://u@127.0.0.1:5432/db"], /--store postgres:\/\/… is a sandbox a team shares/],
    [["--store", "mysql://u@h/db", "--admin-token", "secret-token-1"], /PostgreSQL URL/],
    [["--data-dir", "a", "--store", "postgres://u@h/db", "--admin-token", "secret-token-1"], /give one/],
    [["--max-records", "0"], /--max-records must be a positive whole number, got 0/],
    [["--max-records", "1e5"], /--max-records must be a positive whole number, got 1e5/],
    // gone with the copies of accounts a process kept (docs/decisions/sandbox-store.md)
    [["--data-dir", "d", "--cache-records", "5000"], /cache-records/],
    [
      ["--store", "postgres://u@h/db", "--admin-token", "secret-token-1", "--peer-url", "http://x"],
      /peer-url/,
    ],
  ])("refuses %j", (args, message) => {
    expect(() => parseCliArgs(args)).toThrow(message);
  });

  it("reads the admin token from PAYKIT_MOCK_ADMIN_TOKEN when --admin-token is absent", () => {
    const env = { PAYKIT_MOCK_ADMIN_TOKEN: "team-sandbox-token" };
    expect(parseCliArgs(["--shared"], env)).toMatchObject({
      adminToken: "team-sandbox-token",
      sharedSandbox: true,
    });
    expect(parseCliArgs(["--host", "0.0.0.0"], env)).toMatchObject({ adminToken: "team-sandbox-token" });
    expect(parseCliArgs(["--store", "postgres://u@h/db"], env)).toMatchObject({ sharedSandbox: true });
    // the option wins; an empty variable is none
    expect(parseCliArgs(["--admin-token", "from-the-flag"], env)).toMatchObject({
      adminToken: "from-the-flag",
    });
    expect(parseCliArgs([], { PAYKIT_MOCK_ADMIN_TOKEN: "" })).toMatchObject({ adminToken: undefined });
    expect(() => parseCliArgs(["--shared"], { PAYKIT_MOCK_ADMIN_TOKEN: "short" })).toThrow(
      "PAYKIT_MOCK_ADMIN_TOKEN must have at least 8 characters",
    );
    expect(() => parseCliArgs([], { PAYKIT_MOCK_ADMIN_TOKEN: "team-sandbox-token\n" })).toThrow(
      /PAYKIT_MOCK_ADMIN_TOKEN must not start or end with whitespace/,
    );
  });

  it("reads --host [::1] as the bare IPv6 loopback", () => {
    expect(parseCliArgs(["--host", "[::1]"])).toMatchObject({ host: "::1" });
    expect(parseCliArgs(["--public-url", "https://mock.example/"])).toMatchObject({
      publicUrl: "https://mock.example",
    });
    expect(parseCliArgs(["--allowed-hosts", "mock.team.example, .preview.example"])).toMatchObject({
      allowedHosts: ["mock.team.example", ".preview.example"],
    });
  });

  it("--help gives each option of the server its own text, with at most one default", () => {
    const options = USAGE.slice(USAGE.indexOf("Options of the server:"));
    // each block: an option's line and the indented lines under it
    const blocks = options.split(/\n(?= {2}--)/).slice(1);
    expect(blocks.length).toBeGreaterThan(12);
    for (const block of blocks) {
      const name = block.trim().split(/\s/)[0];
      // "(default …)" or "default: …", the clause that says what happens without the option
      expect(block.match(/\(default|\bdefault:/gi)?.length ?? 0, `${name}: ${block}`).toBeLessThanOrEqual(1);
    }
    const maxRecords = blocks.find((block) => block.trimStart().startsWith("--max-records")) ?? "";
    expect(maxRecords).not.toContain("listening address");
  });

  it("reads the defaults", () => {
    expect(parseCliArgs([])).toEqual({
      port: 4010,
      host: "127.0.0.1",
      manual: false,
      adminToken: undefined,
      sharedSandbox: false,
      defaultKeys: undefined,
      webhookSecret: undefined,
      strictPixDirectory: false,
      publicUrl: undefined,
      allowedHosts: [],
    });
  });

  /** Starts the CLI with `args`, reads the printed webhook secret, and stops it. */
  async function printedSecret(args: string[]): Promise<string> {
    const { child, lines } = start(["--port", "0", "--manual", ...args]);
    children.push(child);
    const printed: string[] = [];
    for (let i = 0; i < 5; i += 1) printed.push((await lines.next()).value as string);
    child.kill("SIGTERM");
    await once(child, "exit");
    return (printed[4] as string).replace(/^ {2}webhook secret: /, "");
  }

  it("prints the same webhook secret at every start with the same --default-keys, another with others", async () => {
    const keys = "pk_test_local0000000001:sk_test_local0000000001";
    const first = await printedSecret(["--default-keys", keys]);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await printedSecret(["--default-keys", keys])).toBe(first);
    // createMockServer in a test gives the same one for the same keys
    const [publicKey, secretKey] = keys.split(":") as [string, string];
    const mock = await createMockServer({ defaultAccount: { publicKey, secretKey } });
    try {
      expect(mock.account.webhookSecret).toBe(first);
    } finally {
      await mock.close();
    }
    expect(
      await printedSecret(["--default-keys", "pk_test_local0000000002:sk_test_local0000000001"]),
    ).not.toBe(first);
    // --webhook-secret still wins
    expect(
      await printedSecret([
        "--default-keys",
        keys,
        "--webhook-secret",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      ]),
    ).toBe("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  }, 120_000);

  it("lists every subcommand in --help, and each answers its own --help", async () => {
    const help = async (args: string[]) => {
      const { child, lines } = start(args);
      children.push(child);
      let out = "";
      for await (const line of lines) out += `${line}\n`;
      return out;
    };
    const usage = await help(["--help"]);
    expect(usage).toBe(USAGE);
    expect(Object.keys(COMMANDS)).toContain("doctor");
    for (const command of Object.keys(COMMANDS)) {
      expect(usage).toMatch(new RegExp(`^ {2}${command} +\\S`, "m"));
      expect(usage).toContain(`(paykit-mock ${command} --help)`);
    }
    expect(await help(["doctor", "--help"])).toBe(DOCTOR_USAGE);
  }, 120_000);

  it("prints a random webhook secret for the default account when none is fixed", async () => {
    const { child, lines } = start(["--port", "0", "--manual"]);
    children.push(child);
    const printed: string[] = [];
    for (let i = 0; i < 5; i += 1) printed.push((await lines.next()).value as string);
    expect(printed[4]).toMatch(/^ {2}webhook secret: whsec_[A-Za-z0-9+/]{32}$/);
    child.kill("SIGTERM");
    await once(child, "exit");
  }, 120_000);
});
