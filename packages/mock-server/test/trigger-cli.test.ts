// `paykit-mock trigger` end to end: the CLI in its own process against a real mock, and its reading of
// arguments and environment.
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup, stopGroup } from "../../../scripts/processes.mjs";
import { createMockServer, type MockServer, samplePayin } from "../src/index.js";
import type { TriggerRun } from "../src/scenarios/run.js";
import { TRIGGER_SCENARIOS } from "../src/scenarios/scenarios.js";
import { TriggerRefusedError } from "../src/scenarios/target.js";
import { COMMANDS, USAGE } from "../src/transports/node/args.js";
import { parseTriggerArgs, TRIGGER_USAGE } from "../src/transports/node/trigger.js";
import { mockCli } from "./cli-bundle.js";

// The environment of the CLI's process: none of the keys a developer's shell may hold.
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "PAYKIT_PUBLIC_KEY",
    "PAYKIT_SECRET_KEY",
    "PAYKIT_MOCK_ADMIN_TOKEN",
    "PAYKIT_WEBHOOK_SECRET",
  ])
    delete env[name];
  return { ...env, ...extra };
}

/** Runs `paykit-mock trigger …` to its end: exit status, stdout, stderr. */
async function trigger(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The CLI from src/, bundled (cli-bundle.ts), in a process group killed with this test process however
  // it ends (scripts/processes.mjs).
  const child = spawnGroup(process.execPath, [await mockCli(), "trigger", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: cleanEnv(env),
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

describe("paykit-mock trigger, the command", () => {
  let mock: MockServer;
  let notMock: Server;
  let notMockUrl: string;
  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false });
    notMock = createServer((_req, res) => res.writeHead(404).end("{}"));
    await new Promise<void>((resolve) => notMock.listen(0, "127.0.0.1", resolve));
    notMockUrl = `http://127.0.0.1:${(notMock.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await mock?.close();
    notMock?.closeAllConnections();
    await new Promise((resolve) => notMock?.close(resolve));
  });

  it("lists every scenario with --list, and answers --help with its usage", async () => {
    const listed = await trigger(["--list"]);
    expect(listed.code).toBe(0);
    for (const scenario of TRIGGER_SCENARIOS) expect(listed.stdout).toContain(scenario.description);
    expect(listed.stdout).toMatch(
      /^ {2}payin\.approved --method PIX +a PIX payin the customer pays \(the default\)$/m,
    );
    expect(listed.stdout).toMatch(/^ {2}payout\.completed +a payout the bank completes$/m);
    const help = await trigger(["--help"]);
    expect(help.stdout).toBe(TRIGGER_USAGE);
  }, 120_000);

  it("plays a scenario with the keys of the environment, one line per step and per delivery", async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      received.push(String(req.headers["webhook-id"]));
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const { code, stdout, stderr } = await trigger(
        ["payin.expired", "--method", "boleto", "--url", mock.url, "--webhook-url", webhookUrl],
        { PAYKIT_PUBLIC_KEY: mock.account.publicKey, PAYKIT_SECRET_KEY: mock.account.secretKey },
      );
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split("\n");
      expect(lines[0]).toBe(`payin.expired --method BOLETO on ${mock.url}`);
      expect(lines[1]).toBe(`Account ${mock.account.accountId} (public key ${mock.account.publicKey})`);
      expect(lines[2]).toMatch(/^ {2}POST \/payin {2}payin pi_\w+ {2}PENDING$/);
      expect(lines[3]).toMatch(/^ {2}expirePayin {2}payin pi_\w+ {2}EXPIRED$/);
      expect(lines[4]).toBe("Ended as stated: payin EXPIRED");
      expect(lines[5]).toBe(`Webhooks to ${webhookUrl}:`);
      expect(lines[6]).toMatch(/^ {2}EXPIRED +payin pi_\w+ {2}delivered, 1 attempt, answered 204$/);
      expect(lines).toHaveLength(7);
      expect(received).toHaveLength(1);
      expect(stdout).not.toContain(mock.account.secretKey);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);

  it("prints one JSON document with --json, from a fresh account opened for the run", async () => {
    const { code, stdout } = await trigger(["payout.awaiting-approval", "--url", mock.url, "--json"], {
      PAYKIT_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    expect(code).toBe(0);
    const run = JSON.parse(stdout) as TriggerRun;
    expect(run).toMatchObject({
      scenario: "payout.awaiting-approval",
      ok: true,
      problems: [],
      account: { opened: true, signed: true },
      webhookUrl: null,
      expected: { payout: "AWAITING_APPROVAL", webhooks: [] },
    });
    expect(run.steps).toEqual([
      {
        step: "POST /payout",
        resource: "payout",
        id: expect.stringMatching(/^po_/),
        status: "AWAITING_APPROVAL",
        byMock: false,
      },
    ]);
    expect((await mock.control.getAccount(run.account.accountId)).payoutApproval).toBe("manual");
    expect(stdout).not.toContain("whsec_");
    expect(stdout).not.toContain("sk_test_");
  }, 120_000);

  it.each([
    [["payin.approved", "--keys", "pk_live_abcdefgh12:sk_live_abcdefgh12"], {}, /live keys/],
    [
      ["payin.approved"],
      { PAYKIT_PUBLIC_KEY: "pk_live_abcdefgh12", PAYKIT_SECRET_KEY: "sk_live_abcdefgh12" },
      /live keys/,
    ],
    [
      ["payin.paid"],
      {},
      /unknown scenario "payin.paid"; the scenarios are: payin.approved, .*payout.canceled\n$/,
    ],
  ])(
    "refuses %j with exit status 2",
    async (args, env, message) => {
      const { code, stdout, stderr } = await trigger([...args, "--url", mock.url], env);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(message);
    },
    120_000,
  );

  it("refuses a URL that is not a mock with exit status 2", async () => {
    const { code, stderr } = await trigger(["payin.approved", "--url", notMockUrl]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `paykit-mock trigger: ${notMockUrl} is not a Paykit mock (${notMockUrl}/_mock/openapi.json answered HTTP 404): ` +
        "trigger only drives a Paykit mock (it checks GET /_mock/openapi.json)\n",
    );
  }, 120_000);

  it("exits 1 when the run does not end as stated, saying why", async () => {
    // an account without card payins: the card scenario's POST /payin is refused
    const noCards = await mock.control.createAccount({ creditCardEnabled: false });
    const { code, stdout } = await trigger([
      "payin.3ds",
      "--url",
      mock.url,
      "--keys",
      `${noCards.publicKey}:${noCards.secretKey}`,
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain("Did not end as stated:\n  - POST /payin failed: 403 CREDIT_CARD_NOT_ENABLED");
  }, 120_000);
});

// `paykit-mock listen` and `trigger` together, as Stripe's users run `stripe listen` and `stripe trigger`:
// with a listener attached and no --webhook-url, the scenario's webhooks reach the listener's receiver.
describe("paykit-mock trigger with paykit-mock listen", () => {
  const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  let mock: MockServer;
  let keys: { publicKey: string; secretKey: string; accountId: string };
  let receiver: Server;
  let forwardTo: string;
  const received: { headers: Record<string, string>; body: string }[] = [];
  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false });
    keys = await mock.control.createAccount({ webhookSecret: SECRET, balance: 1_000_000 });
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    forwardTo = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(async () => {
    await mock?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });
  const env = () => ({ PAYKIT_PUBLIC_KEY: keys.publicKey, PAYKIT_SECRET_KEY: keys.secretKey });

  /** Runs `paykit-mock listen` until `body` is done, once it said Ready. */
  async function listening(extra: string[], body: () => Promise<void>): Promise<void> {
    const listener = spawnGroup(
      process.execPath,
      [await mockCli(), "listen", "--url", mock.url, "--forward-to", forwardTo, ...extra],
      { stdio: ["ignore", "pipe", "pipe"], env: cleanEnv(env()) },
    );
    try {
      for await (const line of createInterface({ input: listener.stdout! }))
        if (line.startsWith("Ready:")) break;
      await body();
    } finally {
      await stopGroup(listener);
    }
  }

  it("sends the scenario's webhooks to the listener's receiver when no --webhook-url is given", async () => {
    await listening([], async () => {
      const { code, stdout, stderr } = await trigger(["payin.approved", "--url", mock.url], env());
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain("Webhooks to your paykit-mock listen:\n");
      expect(stdout).toMatch(/^ {2}APPROVED +payin pi_\w+ {2}delivered, 1 attempt, answered 204$/m);
    });
    expect(received).toHaveLength(1);
    const [sent] = received;
    expect(new Webhook(SECRET).verify(sent!.body, sent!.headers)).toMatchObject({ status: "APPROVED" });
  }, 120_000);

  it("says so when the listener takes other events, and sends nothing", async () => {
    received.length = 0;
    await listening(["--events", "payout.*"], async () => {
      const { code, stdout } = await trigger(["payin.approved", "--url", mock.url], env());
      expect(code).toBe(0);
      expect(stdout).toContain(
        "Note: a paykit-mock listen is attached to the account but takes only payout.*, not payin.approved: give --webhook-url, or listen without --events",
      );
      expect(stdout).toContain("Webhooks: none, the resource was made without a webhookUrl");
    });
    expect(received).toHaveLength(0);
  }, 120_000);

  it("says how to get webhooks when neither a listener nor --webhook-url is there", async () => {
    const { code, stdout } = await trigger(["payin.approved", "--url", mock.url], env());
    expect(code).toBe(0);
    expect(stdout).toContain(
      "give --webhook-url <your receiver>, or run paykit-mock listen on the account first",
    );
  }, 120_000);

  it("reads --amount, --reference-id and --data, and drives --payin; a bad --data file is refused naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paykit-trigger-"));
    try {
      const data = join(dir, "order.json");
      writeFileSync(data, JSON.stringify({ customer: { name: "João Ninguém" } }));
      const made = await trigger(
        [
          "payin.approved",
          "--url",
          mock.url,
          "--amount",
          "14990",
          "--reference-id",
          "cli-order-1",
          "--data",
          data,
          "--json",
        ],
        env(),
      );
      expect(made.code, made.stderr).toBe(0);
      const run = JSON.parse(made.stdout) as TriggerRun;
      const [payin] = await mock.control.payins(keys.accountId, { limit: 1 });
      expect(payin).toMatchObject({ id: run.steps[0]?.id, amount: 14_990, referenceId: "cli-order-1" });
      expect(payin?.customer.name).toBe("João Ninguém");

      const pending = await fetch(`${mock.url}/payin`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(samplePayin("BOLETO")),
      });
      const { id } = (await pending.json()) as { id: string };
      const driven = await trigger(["payin.approved", "--url", mock.url, "--payin", id], env());
      expect(driven.code, driven.stderr).toBe(0);
      expect(driven.stdout).toContain(`payin.approved --method BOLETO on ${mock.url}`);
      expect(driven.stdout).toContain(`Driving payin ${id}, PENDING before the run`);
      expect(driven.stdout).toMatch(new RegExp(`^ {2}payPayin {2}payin ${id} {2}APPROVED$`, "m"));

      writeFileSync(data, "{ customer: oops }");
      const bad = await trigger(["payin.approved", "--url", mock.url, "--data", data], env());
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`--data: ${data} is not JSON (`);
      writeFileSync(data, JSON.stringify({ customer: { document: "123" } }));
      const invalid = await trigger(["payin.approved", "--url", mock.url, "--data", data], env());
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toMatch(/the payin request is invalid: --data: customer\.document /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("paykit-mock trigger's arguments", () => {
  it("is listed in paykit-mock --help", () => {
    expect(Object.keys(COMMANDS)).toContain("trigger");
    expect(USAGE).toContain("(paykit-mock trigger --help)");
  });

  it("reads the keys, token and secret from the environment, the flags winning", () => {
    const env = {
      PAYKIT_PUBLIC_KEY: "pk_test_fromenv0001",
      PAYKIT_SECRET_KEY: "sk_test_fromenv0001",
      PAYKIT_MOCK_ADMIN_TOKEN: "env-token-1",
      PAYKIT_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    };
    expect(parseTriggerArgs(["payin.3ds", "--outcome", "REJECT"], env)).toEqual({
      list: false,
      json: false,
      scenario: "payin.3ds",
      run: {
        url: "http://127.0.0.1:4010",
        keys: { publicKey: "pk_test_fromenv0001", secretKey: "sk_test_fromenv0001" },
        adminToken: "env-token-1",
        outcome: "reject",
      },
    });
    const fresh = parseTriggerArgs(
      ["payout.failed", "--new-account", "--url", "http://mock.test:4010/"],
      env,
    );
    expect(fresh).toMatchObject({
      run: { url: "http://mock.test:4010", webhookSecret: env.PAYKIT_WEBHOOK_SECRET },
    });
    expect(fresh !== "help" && !fresh.list && fresh.run.keys).toBe(undefined);
    expect(
      parseTriggerArgs(
        ["payout.failed", "--keys", "pk_test_flag00001:sk_test_flag00001", "--admin-token", "t"],
        env,
      ),
    ).toMatchObject({ run: { keys: { publicKey: "pk_test_flag00001" }, adminToken: "t" } });
  });

  it.each([
    [[], "name a scenario (--list shows them)"],
    [["a", "b"], "name one scenario"],
    [["--list", "payin.approved"], "--list takes no scenario"],
    [
      ["payin.approved", "--method", "CASH"],
      "--method must be one of PIX, BOLETO, CREDIT_CARD, OPEN_FINANCE, got CASH",
    ],
    [["payin.3ds", "--outcome", "maybe"], "--outcome must be approve or reject, got maybe"],
    [
      ["payin.approved", "--keys", "pk_test_abcdefgh"],
      "--keys must be a mock account's pk_test_… and sk_test_… keys",
    ],
    [["payin.approved", "--url", "mock:4010"], "--url must be an http(s) URL, got mock:4010"],
    [
      ["payin.approved", "--webhook-url", "localhost"],
      "--webhook-url must be an absolute http(s) URL, got localhost",
    ],
    [
      ["payin.approved", "--keys", "pk_test_abcdefgh:sk_test_abcdefgh", "--webhook-secret", "whsec_x"],
      "--webhook-secret is for a fresh account; yours signs with its own secret",
    ],
    [
      ["payin.approved", "--keys", "pk_test_abcdefgh:sk_test_abcdefgh", "--new-account"],
      "--new-account opens a fresh account: give it or --keys, not both",
    ],
  ])("refuses %j: %s", (args, message) => {
    expect(() => parseTriggerArgs(args, {})).toThrow(message);
  });

  it("refuses half a key pair from the environment, and live keys as a refusal", () => {
    expect(() => parseTriggerArgs(["payin.approved"], { PAYKIT_PUBLIC_KEY: "pk_test_abcdefgh" })).toThrow(
      "PAYKIT_PUBLIC_KEY and PAYKIT_SECRET_KEY must be a mock account's pk_test_… and sk_test_… keys",
    );
    expect(() => parseTriggerArgs(["payin.approved", "--keys", "pk_live_abcdefgh:sk_test_abcdefgh"])).toThrow(
      TriggerRefusedError,
    );
  });
});
