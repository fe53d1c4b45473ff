// `paykit-mock mcp` driven by the MCP SDK's own client over stdio, against a real mock over HTTP
// (docs/testing.md, "Coding agents").

import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../scripts/services.mjs";
import { createMockServer, type MockServer, samplePayin, samplePayout } from "../src/index.js";
import { AGENT_CONTROL_CALLS } from "../src/mcp/control-tools.js";
import { localServer, type McpSession, runMcpToExit, startMcp, stopAll } from "./mcp-harness.js";

const KEYS = { publicKey: "pk_test_mcpagent0001", secretKey: "sk_test_mcpagent0001secret" };
const WEBHOOK_SECRET = `whsec_${Buffer.from("mcp-test-webhook-secret-32-bytes").toString("base64")}`;

let mock: MockServer;
let session: McpSession;

beforeAll(async () => {
  mock = await createMockServer({ autoAdvance: false });
  await mock.control.createAccount({ ...KEYS, webhookSecret: WEBHOOK_SECRET, balance: 1_000_000 });
  session = await startMcp([
    "--url",
    mock.url,
    "--keys",
    `${KEYS.publicKey}:${KEYS.secretKey}`,
    "--webhook-secret",
    WEBHOOK_SECRET,
  ]);
}, 120_000);

afterAll(async () => {
  await stopAll();
  await mock?.close();
});

describe("paykit-mock mcp: the tools", () => {
  it("lists the tools, each input schema a valid JSON Schema 2020-12 that the contract's samples satisfy", async () => {
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        ...AGENT_CONTROL_CALLS,
        "createPayin",
        "retrievePayin",
        "createPayout",
        "retrievePayout",
        "listPayouts",
        "runScenario",
        "webhookDoctor",
      ]),
    );
    // Calls about every account of the sandbox are not an agent's.
    for (const global of ["reset", "clock", "setClock", "setRateLimit", "accounts", "rotateWebhookSecret"])
      expect(names).not.toContain(global);
    expect(new Set(names).size).toBe(names.length);

    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\w{3}/);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
    const valid = (name: string, value: unknown) => {
      const validate = ajv.compile(schemas.get(name)!);
      return validate(value) ? "valid" : ajv.errorsText(validate.errors);
    };
    for (const method of ["PIX", "BOLETO", "CREDIT_CARD", "OPEN_FINANCE"] as const)
      expect(valid("createPayin", samplePayin(method)), method).toBe("valid");
    expect(valid("createPayout", samplePayout())).toBe("valid");
    expect(valid("setAccountClock", { advanceMs: 60_000 })).toBe("valid");
    expect(valid("payPayin", { id: "pi_1", awaitWebhooks: true })).toBe("valid");
    expect(valid("payPayin", {})).not.toBe("valid");
    expect(valid("createPayin", { paymentMethod: "CASH" })).not.toBe("valid");
    // The session's account is filled in by the server, never asked of the agent.
    expect(Object.keys((schemas.get("webhooks") as { properties: object }).properties)).not.toContain(
      "accountId",
    );
    expect(Object.keys((schemas.get("setAccountClock") as { properties: object }).properties)).not.toContain(
      "id",
    );
  });

  it("runs a PIX flow: create, pay, retrieve APPROVED, and the delivery in the log", async () => {
    const receiver = await localServer(() => ({ status: 200, body: "ok" }));
    const created = await session.call(
      "createPayin",
      samplePayin("PIX", { webhookUrl: `${receiver.url}/webhooks` }),
    );
    expect(created.isError, created.text).toBe(false);
    const payin = created.json as { id: string; status: string; pix: { qrcode: string } };
    expect(payin).toMatchObject({ status: "PENDING", pix: { qrcode: expect.stringMatching(/^000201/) } });

    const paid = await session.call("payPayin", { id: payin.id, awaitWebhooks: true });
    expect(paid.isError, paid.text).toBe(false);
    expect(paid.json).toMatchObject({ id: payin.id, status: "APPROVED" });

    const retrieved = await session.call("retrievePayin", { id: payin.id });
    expect(retrieved.json).toMatchObject({ id: payin.id, status: "APPROVED", paymentMethod: "PIX" });

    const log = await session.call("webhooks", { limit: 100 });
    const deliveries = (
      log.json as { data: { resourceId: string; state: string; attempts: { statusCode: number | null }[] }[] }
    ).data;
    expect(deliveries.find((d) => d.resourceId === payin.id)).toMatchObject({
      state: "delivered",
      attempts: [{ statusCode: 200 }],
    });
    // The receiver got it signed with the account's secret.
    const [sent] = receiver.received;
    expect(
      new Webhook(WEBHOOK_SECRET).verify(sent!.body, sent!.headers as Record<string, string>),
    ).toMatchObject({ id: payin.id, status: "APPROVED" });
  });

  it("createAccount signs with the receiver's --webhook-secret by default, and a receiver verifies its delivery", async () => {
    // a session of its own: createAccount makes the new account the session's
    const agent = await startMcp(["--url", mock.url, "--webhook-secret", WEBHOOK_SECRET]);
    const opened = await agent.call("createAccount", { balance: 0 });
    expect(opened.isError, opened.text).toBe(false);
    const account = opened.json as Record<string, unknown>;
    expect(account).toMatchObject({
      webhookSigned: true,
      webhookSecret: expect.stringContaining("withheld"),
    });
    expect(account.note).toContain("signed with your receiver's webhook secret");
    expect((await agent.call("getAccount")).json).toMatchObject({
      accountId: account.accountId,
      webhookSigned: true,
    });
    const receiver = await localServer(() => ({ status: 204, body: "" }));
    const payin = (await agent.call("createPayin", samplePayin("PIX", { webhookUrl: receiver.url })))
      .json as { id: string };
    expect((await agent.call("payPayin", { id: payin.id, awaitWebhooks: true })).isError).toBe(false);
    const [sent] = receiver.received;
    expect(
      new Webhook(WEBHOOK_SECRET).verify(sent!.body, sent!.headers as Record<string, string>),
    ).toMatchObject({ id: payin.id, status: "APPROVED" });
    expect(opened.text).not.toContain(WEBHOOK_SECRET);
  });

  it("createAccount without any webhook secret says the account is unsigned, as getAccount does", async () => {
    const unsigned = await startMcp(["--url", mock.url]);
    const opened = await unsigned.call("createAccount", {});
    expect(opened.isError, opened.text).toBe(false);
    const account = opened.json as Record<string, unknown>;
    // no "webhookSecret: (withheld…)" for a secret that does not exist
    expect(account).not.toHaveProperty("webhookSecret");
    expect(account).toMatchObject({ webhookSigned: false });
    expect(account.note).toContain("unsigned (webhookSigned: false)");
    expect(account.note).toContain("--webhook-secret");
    expect((await unsigned.call("getAccount")).json).toMatchObject({ webhookSigned: false });
    // signed once given one, and then said so
    const signedNow = await unsigned.call("updateAccount", { webhookSecret: WEBHOOK_SECRET });
    expect(signedNow.json).toMatchObject({ webhookSigned: true });
    expect(signedNow.text).not.toContain(WEBHOOK_SECRET);
  });

  it("webhooks answers newest first, a page of 20, and finds a payin's delivery by resourceId and status", async () => {
    const receiver = await localServer(() => ({ status: 204, body: "" }));
    const paid: string[] = [];
    for (let i = 0; i < 22; i++) {
      const payin = (await session.call("createPayin", samplePayin("PIX", { webhookUrl: receiver.url })))
        .json as { id: string };
      expect((await session.call("payPayin", { id: payin.id, awaitWebhooks: true })).isError).toBe(false);
      paid.push(payin.id);
    }
    type Page = { data: { resourceId: string; status: string; state: string }[]; nextCursor: string | null };
    const newest = (await session.call("webhooks")).json as Page;
    expect(newest.data).toHaveLength(20);
    expect(newest.data.slice(0, 3).map((d) => d.resourceId)).toEqual(paid.slice(-3).reverse());
    expect(newest.nextCursor).toEqual(expect.any(String));
    const next = (await session.call("webhooks", { cursor: newest.nextCursor })).json as Page;
    expect(next.data.map((d) => d.resourceId).slice(0, 2)).toEqual([paid[1], paid[0]]);
    const one = (await session.call("webhooks", { resourceId: paid[5], status: "APPROVED" })).json as Page;
    expect(one.data).toEqual([
      expect.objectContaining({ resourceId: paid[5], status: "APPROVED", state: "delivered" }),
    ]);
    expect(
      ((await session.call("webhooks", { resourceId: paid[5], status: "EXPIRED" })).json as Page).data,
    ).toEqual([]);
    const oldest = (await session.call("webhooks", { order: "oldest", limit: 1 })).json as Page;
    expect(oldest.data).toHaveLength(1);
    const { tools } = await session.client.listTools();
    const tool = tools.find((t) => t.name === "webhooks");
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["resourceId", "status", "state", "order", "limit", "cursor"]),
    );
    expect(tool?.description).toContain("newest first");
  });

  it("runs a payout to COMPLETED, finds it by referenceId, and refuses one above the cap", async () => {
    const request = samplePayout({ amount: 5_000 });
    const created = await session.call("createPayout", request);
    expect(created.isError, created.text).toBe(false);
    const payout = created.json as { id: string; status: string };
    expect(payout.status).toBe("PENDING");
    expect((await session.call("advancePayout", { id: payout.id })).json).toMatchObject({
      status: "PROCESSING",
    });
    expect((await session.call("advancePayout", { id: payout.id })).json).toMatchObject({
      status: "COMPLETED",
    });
    const found = await session.call("retrievePayout", { referenceId: request.referenceId });
    expect(found.json).toMatchObject({ id: payout.id, status: "COMPLETED" });
    const listed = await session.call("listPayouts", { status: "COMPLETED", limit: 100 });
    expect((listed.json as { data: { id: string }[] }).data.map((p) => p.id)).toContain(payout.id);

    const above = await session.call("createPayout", samplePayout({ amount: 100_001 }));
    expect(above.isError).toBe(true);
    expect(above.json).toMatchObject({
      code: "PAYOUT_CAP_EXCEEDED",
      message: expect.stringContaining("100000"),
    });
  });

  it.each([
    ["the mock's refusal, with its code", "retrievePayin", { id: "pi_missing" }, "NOT_FOUND"],
    ["the contract's check", "createPayin", { paymentMethod: "PIX" }, "INVALID_DATA"],
    ["an unknown field", "payPayin", { id: "pi_x", color: "red" }, "INVALID_DATA"],
    ["a missing id", "payPayin", { awaitWebhooks: true }, "INVALID_DATA"],
    [
      "a live key anywhere in the arguments",
      "createPayin",
      { referenceId: "sk_live_abcdefgh" },
      "LIVE_KEY_REFUSED",
    ],
    ["a receiver not on this machine", "webhookDoctor", { url: "https://example.com/hook" }, "NOT_LOCAL"],
  ])("answers %s as a tool error (isError), not a crash", async (_what, tool, args, code) => {
    const result = await session.call(tool, args);
    expect(result.isError).toBe(true);
    expect(result.json).toMatchObject({ code, message: expect.any(String) });
    // The server still answers.
    expect((await session.call("accountClock")).isError).toBe(false);
  });

  it.each([
    ["payin.approved", { method: "BOLETO" }, "APPROVED"],
    ["payout.completed", {}, "COMPLETED"],
  ])("plays the trigger scenario %s %j on the session's account", async (scenario, choice, status) => {
    const receiver = await localServer(() => ({ status: 204, body: "" }));
    const result = await session.call("runScenario", { scenario, ...choice, webhookUrl: receiver.url });
    expect(result.isError, result.text).toBe(false);
    const run = result.json as {
      ok: boolean;
      account: { publicKey: string };
      steps: { status: string }[];
      deliveries: { status: string; answer: number }[];
    };
    expect(run).toMatchObject({ ok: true, account: { publicKey: KEYS.publicKey } });
    expect(run.steps.at(-1)?.status).toBe(status);
    expect(run.deliveries.at(-1)).toMatchObject({ status, answer: 204 });
  });

  it("refuses a scenario whose payout is above the cap, and an unknown scenario", async () => {
    const capped = await startMcp([
      "--url",
      mock.url,
      "--keys",
      `${KEYS.publicKey}:${KEYS.secretKey}`,
      "--max-payout-cents",
      "100",
    ]);
    const above = await capped.call("runScenario", { scenario: "payout.completed" });
    expect(above.json).toMatchObject({ code: "PAYOUT_CAP_EXCEEDED" });
    const unknown = await capped.call("runScenario", { scenario: "payin.teleported" });
    expect(unknown).toMatchObject({ isError: true, json: { code: "INVALID_DATA" } });
  });

  it("runs the webhook doctor against a local receiver and shows its verdict", async () => {
    const verifier = new Webhook(WEBHOOK_SECRET);
    const receiver = await localServer((req, body) => {
      try {
        verifier.verify(body, req.headers as Record<string, string>);
        return { status: 200, body: "ok" };
      } catch {
        return { status: 400, body: "bad signature" };
      }
    });
    // The secret is the server's --webhook-secret: the agent need not know it.
    const result = await session.call("webhookDoctor", { url: `${receiver.url}/webhooks`, timeoutMs: 5_000 });
    expect(result.isError, result.text).toBe(false);
    const report = result.json as { ok: boolean; cases: { name: string; passed: boolean }[] };
    expect(report.cases.find((c) => c.name === "tampered-body")?.passed).toBe(true);
    expect(report.cases.find((c) => c.name === "wrong-secret")?.passed).toBe(true);
    expect(result.text).not.toContain(WEBHOOK_SECRET);
  });

  it("opens an account for an agent without keys, shows its public key only, and acts on it", async () => {
    const fresh = await startMcp(["--url", mock.url]);
    const none = await fresh.call("accountClock");
    expect(none.json).toMatchObject({ code: "NO_ACCOUNT" });
    // the server's own message names the keys to give, and the scrubber leaves it whole
    expect(none.text).toContain("start the server with --keys pk_test_…:sk_test_…");
    const opened = await fresh.call("createAccount", { balance: 20_000, webhookSecret: WEBHOOK_SECRET });
    expect(opened.isError, opened.text).toBe(false);
    const account = opened.json as { accountId: string; publicKey: string; secretKey: string };
    expect(account.publicKey).toMatch(/^pk_test_/);
    expect(opened.text).not.toMatch(/sk_test_|whsec_/);
    const created = await fresh.call("createPayin", samplePayin("BOLETO"));
    expect(created.isError, created.text).toBe(false);
    const payins = await mock.control.payins(account.accountId);
    expect(payins.map((p) => p.id)).toEqual([(created.json as { id: string }).id]);
  });
});

describe('paykit-mock mcp: as docs/testing.md ("Coding agents") configures it', () => {
  const section = readFileSync(new URL("../../../docs/testing.md", import.meta.url), "utf8")
    .split(/^## /m)
    .find((part) => part.startsWith("Coding agents\n")) as string;

  it("starts from the printed mcpServers entry and acts on the account of its --keys", async () => {
    const config = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "null") as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const { command, args } = config.mcpServers["paykit-mock"]!;
    expect([command, ...args.slice(0, 2)]).toEqual(["npx", "paykit-mock", "mcp"]);
    const [publicKey, secretKey] = args[args.indexOf("--keys") + 1]!.split(":") as [string, string];
    // The mock of the quick start (those default keys), on a free port instead of 4010.
    await using local = await createMockServer({
      autoAdvance: false,
      defaultAccount: { publicKey, secretKey },
    });
    const printed = await startMcp(
      args.slice(2).map((arg) => (arg === "http://127.0.0.1:4010" ? local.url : arg)),
    );
    const created = await printed.call("createPayin", samplePayin("PIX"));
    expect(created.isError, created.text).toBe(false);
    const [payin] = await local.control.payins(local.account.accountId);
    expect(payin?.id).toBe((created.json as { id: string }).id);
  });

  it("names every tool in the section's table", async () => {
    const { tools } = await session.client.listTools();
    const missing = tools.map((tool) => tool.name).filter((name) => !section.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it("starts before the mock does, and each tool checks the URL until one answers", async () => {
    const port = await freePort();
    const early = await startMcp([
      "--url",
      `http://127.0.0.1:${port}`,
      "--keys",
      `${KEYS.publicKey}:${KEYS.secretKey}`,
    ]);
    expect((await early.call("accountClock")).json).toMatchObject({ code: "MOCK_UNREACHABLE" });
    await using late = await createMockServer({ port, autoAdvance: false });
    await late.control.createAccount(KEYS);
    const clock = await early.call("accountClock");
    expect(clock.isError, clock.text).toBe(false);
  });
});

describe("paykit-mock mcp: refusals at start", () => {
  it.each([
    [["--keys", "pk_live_abcdefgh1234:sk_live_abcdefgh1234"], /live keys/],
    [["--keys", "pk_test_abcdefgh1234"], /pk_test_…:sk_test_…/],
    [["--max-payout-cents", "1e6"], /--max-payout-cents/],
    [["--url", "ftp://127.0.0.1"], /--url/],
  ])(
    "refuses %j with exit status 2",
    async (args, message) => {
      const { code, stderr, stdout } = await runMcpToExit(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stdout).toBe("");
    },
    120_000,
  );

  it.each([
    ["a plain web server", { status: 200, body: "hello", type: "text/plain" }],
    [
      "another API's OpenAPI document",
      {
        status: 200,
        body: JSON.stringify({ openapi: "3.1.0", info: { title: "Payments" } }),
        type: "application/json",
      },
    ],
  ])(
    "refuses a URL that is not a mock (%s) with exit status 2",
    async (_what, answer) => {
      const other = await localServer(() => answer);
      const { code, stderr } = await runMcpToExit([
        "--url",
        other.url,
        "--keys",
        `${KEYS.publicKey}:${KEYS.secretKey}`,
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain("is not a Paykit mock");
      expect(other.received.length).toBeGreaterThan(0);
    },
    120_000,
  );
});
