// `paykit-mock trigger`'s scenarios, each played from a fresh account on a real mock over HTTP, with
// its webhooks sent to a real local receiver that verifies their signatures (docs/testing.md, "Your
// laptop and a team sandbox").
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { verifyWebhook } from "@paykit/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONTROL_CALLS } from "../src/control/table.js";
import { createMockServer, type MockServer, SAMPLE_CARD } from "../src/index.js";
import { runTriggerScenario, triggerScenarioLabel } from "../src/scenarios/run.js";
import { TRIGGER_SCENARIOS } from "../src/scenarios/scenarios.js";
import { TriggerRefusedError } from "../src/scenarios/target.js";

const SECRET = `whsec_${Buffer.from("trigger-test-secret-of-32-bytes!").toString("base64")}`;

interface Received {
  webhookId: string;
  resourceId: string;
  status: string;
}

/** A webhook receiver that verifies each delivery with @paykit/webhooks: 200 and kept, or 400. */
async function startReceiver(secret: string): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      verifyWebhook(Buffer.concat(chunks).toString("utf8"), req.headers, secret).then(
        (event) => {
          received.push({
            webhookId: String(req.headers["webhook-id"]),
            resourceId: event.data.id,
            status: event.data.status,
          });
          res.writeHead(200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, received, server };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe("the trigger scenarios as data", () => {
  it.each(TRIGGER_SCENARIOS.map((s) => [triggerScenarioLabel(s), s] as const))(
    "%s: names control-table calls on its own resource, and ends where its last step leaves it",
    (_label, scenario) => {
      const resource = scenario.steps[0] && "create" in scenario.steps[0] ? scenario.steps[0].create : null;
      expect(resource).not.toBeNull();
      for (const step of scenario.steps.slice(1)) {
        expect("call" in step).toBe(true);
        if ("call" in step) expect(CONTROL_CALLS[step.call].scope).toBe(resource);
      }
      expect(scenario.expect[resource as "payin" | "payout"]).toBe(scenario.steps.at(-1)?.to);
      expect(scenario.description).toMatch(/^[a-z].*[^.]$/);
    },
  );

  it("is the table of docs/testing.md, row for row", () => {
    const page = readFileSync(fileURLToPath(new URL("../../../docs/testing.md", import.meta.url)), "utf8");
    const section = page.split("\n## Your laptop and a team sandbox\n")[1]?.split("\n## ")[0] ?? "";
    const rows = section.split("\n").filter((line) => /^\| `pay(in|out)\./.test(line));
    const code = (items: readonly string[]) =>
      items.length === 0 ? "none" : items.map((item) => `\`${item}\``).join(", ");
    const expected = TRIGGER_SCENARIOS.map((s) =>
      [
        "",
        ` \`${triggerScenarioLabel(s)}\` `,
        ` ${s.description} `,
        ` ${code(s.steps.map((step) => ("create" in step ? `POST /${step.create}` : step.call)))} `,
        ` ${code([(s.expect.payin ?? s.expect.payout) as string])} `,
        ` ${code(s.expect.webhooks)} `,
        "",
      ].join("|"),
    );
    expect(rows).toEqual(expected);
  });

  it("has one default per name and one entry per choice", () => {
    const seen = new Set<string>();
    for (const s of TRIGGER_SCENARIOS) {
      const key = triggerScenarioLabel(s);
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
    for (const name of ["payin.approved", "payin.expired"])
      expect(TRIGGER_SCENARIOS.filter((s) => s.name === name).map((s) => s.method)).toEqual([
        "PIX",
        "BOLETO",
        "OPEN_FINANCE",
        "CREDIT_CARD",
      ]);
  });
});

describe("every trigger scenario, from a fresh account on a real mock", () => {
  let mock: MockServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    // payouts move on their own on this server (its default): a fresh account's are the run's alone
    mock = await createMockServer();
    receiver = await startReceiver(SECRET);
  });
  afterAll(async () => {
    await mock?.close();
    if (receiver) await stop(receiver.server);
  });

  it.each(TRIGGER_SCENARIOS.map((s) => [triggerScenarioLabel(s), s] as const))(
    "%s ends in the stated states, its webhooks verified at a local receiver",
    async (_label, scenario) => {
      const run = await runTriggerScenario(scenario.name, {
        url: mock.url,
        method: scenario.method,
        outcome: scenario.outcome,
        webhookUrl: receiver.url,
        webhookSecret: SECRET,
      });
      expect(run.problems).toEqual([]);
      expect(run.ok).toBe(true);
      expect(run.account).toMatchObject({ opened: true, signed: true });
      expect(run.steps.map((step) => step.status)).toEqual(scenario.steps.map((step) => step.to));
      const id = run.steps[0]?.id as string;
      expect(run.steps.every((step) => step.id === id && !step.byMock)).toBe(true);

      // the mock's own record of it, read with the admin's control (not the run's)
      const { accountId } = run.account;
      const [view] =
        scenario.expect.payin !== undefined
          ? await mock.control.payins(accountId)
          : await mock.control.payouts(accountId);
      expect(view?.id).toBe(id);
      expect(view?.status).toBe(scenario.expect.payin ?? scenario.expect.payout);
      expect(view?.statusHistory.map((change) => change.status)).toEqual(scenario.steps.map((s) => s.to));

      // the stated webhooks: in the log, delivered, and received with a valid signature
      expect(run.deliveries.map((d) => d.status)).toEqual(scenario.expect.webhooks);
      for (const delivery of run.deliveries)
        expect(delivery).toMatchObject({ resourceId: id, state: "delivered", attempts: 1, answer: 200 });
      const mine = receiver.received.filter((r) => r.resourceId === id);
      expect(mine.map((r) => r.status)).toEqual(scenario.expect.webhooks);
      expect(mine.map((r) => r.webhookId)).toEqual(run.deliveries.map((d) => d.webhookId));

      // nothing secret in what a run answers (the CLI prints it as JSON)
      const text = JSON.stringify(run);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("sk_test_");
      expect(text).not.toContain(SAMPLE_CARD.number);
      expect(text).not.toContain("4000000000003220");
    },
  );
});

describe("trigger on the caller's own account", () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it("waits for the steps of an account whose payouts move on their own instead of making them twice", async () => {
    const mock = await createMockServer({ advanceIntervalMs: 50 });
    servers.push(mock);
    const receiver = await startReceiver(mock.account.webhookSecret as string);
    servers.push({ close: () => stop(receiver.server) });
    const run = await runTriggerScenario("payout.refunded", {
      url: mock.url,
      keys: mock.account,
      webhookUrl: receiver.url,
    });
    expect(run.problems).toEqual([]);
    expect(run.account).toMatchObject({ accountId: mock.account.accountId, opened: false, signed: true });
    expect(run.steps.map((s) => [s.step, s.byMock])).toEqual([
      ["POST /payout", false],
      ["advancePayout", true],
      ["advancePayout", true],
      ["refundPayout", false],
    ]);
    expect(run.steps.at(-1)?.status).toBe("REFUNDED");
    expect(run.deliveries.map((d) => d.status)).toEqual(["PROCESSING", "COMPLETED", "REFUNDED"]);
    const id = run.steps[0]?.id;
    expect(receiver.received.filter((r) => r.resourceId === id).map((r) => r.status)).toEqual([
      "PROCESSING",
      "COMPLETED",
      "REFUNDED",
    ]);
  });

  it("reports a receiver's refusal as the delivery's answer, and says where nothing was sent", async () => {
    const mock = await createMockServer({ autoAdvance: false });
    servers.push(mock);
    // a receiver with the wrong secret answers 400 to every delivery
    const receiver = await startReceiver(
      `whsec_${Buffer.from("not-the-account-secret-32-bytes!").toString("base64")}`,
    );
    servers.push({ close: () => stop(receiver.server) });
    const refused = await runTriggerScenario("payin.approved", {
      url: mock.url,
      keys: mock.account,
      method: "BOLETO",
      webhookUrl: receiver.url,
    });
    // the states are the scenario's; the receiver's answer is reported, not a failure of the run
    expect(refused.ok).toBe(true);
    expect(refused.deliveries).toMatchObject([{ status: "APPROVED", state: "pending", answer: 400 }]);
    // its first retry is due 5 s later: one attempt, or two on a machine slow enough to reach it
    expect(refused.deliveries[0]?.attempts).toBeGreaterThanOrEqual(1);
    const silent = await runTriggerScenario("payin.approved", { url: mock.url, keys: mock.account });
    expect(silent).toMatchObject({ ok: true, webhookUrl: null, deliveries: [] });
  });

  it("refuses an account unfit for the scenario before making anything", async () => {
    const mock = await createMockServer({ autoAdvance: false });
    servers.push(mock);
    await expect(
      runTriggerScenario("payout.awaiting-approval", { url: mock.url, keys: mock.account }),
    ).rejects.toThrow(/payoutApproval: manual.*payoutApproval: automatic/s);
    expect(await mock.control.payouts(mock.account.accountId)).toEqual([]);
  });

  it("drives a shared sandbox with the account's own keys, and opens an account there without the token", async () => {
    const sandbox = await createMockServer({ adminToken: "team-admin-token", sharedSandbox: true });
    servers.push(sandbox);
    const opened = await runTriggerScenario("payout.canceled", { url: sandbox.url });
    expect(opened).toMatchObject({ ok: true, account: { opened: true } });
    const mine = await sandbox.control.createAccount({ balance: 100_000, autoAdvance: false });
    const run = await runTriggerScenario("payout.completed", {
      url: sandbox.url,
      keys: { publicKey: mine.publicKey, secretKey: mine.secretKey },
    });
    expect(run.problems).toEqual([]);
    expect(run.account).toMatchObject({ accountId: mine.accountId, opened: false });
    // another account's keys cannot reach it, and the admin token is never needed
    expect((await sandbox.control.payouts(mine.accountId)).map((p) => p.status)).toEqual(["COMPLETED"]);
  });

  it("refuses to open an account on a mock whose control API needs the token, naming it", async () => {
    const mock = await createMockServer({ adminToken: "mock-admin-token" });
    servers.push(mock);
    await expect(runTriggerScenario("payin.approved", { url: mock.url })).rejects.toThrow(
      /401 UNAUTHORIZED.*--admin-token or PAYKIT_MOCK_ADMIN_TOKEN/,
    );
    const run = await runTriggerScenario("payin.approved", { url: mock.url, adminToken: "mock-admin-token" });
    expect(run.ok).toBe(true);
  });
});

describe("what trigger refuses before it sends anything", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await stop(server);
  });

  async function serve(status: number, body: string): Promise<{ url: string; hits: string[] }> {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(status, { "content-type": "application/json" }).end(body);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
  }

  it.each([
    ["a page that is not found", 404, "{}"],
    ["another OpenAPI document", 200, JSON.stringify({ openapi: "3.1.0", info: { title: "Payments API" } })],
    ["something that is not JSON", 200, "<html></html>"],
  ])("a URL where %s answers is not a mock: refused after one GET", async (_what, status, body) => {
    const server = await serve(status, body);
    const run = runTriggerScenario("payin.approved", { url: server.url });
    await expect(run).rejects.toBeInstanceOf(TriggerRefusedError);
    await expect(run).rejects.toThrow(/is not a Paykit mock/);
    expect(server.hits).toEqual(["GET /_mock/openapi.json"]);
  });

  it("refuses live-looking keys without a request", async () => {
    const server = await serve(404, "{}");
    for (const keys of [
      { publicKey: "pk_live_abcdefgh12", secretKey: "sk_test_abcdefgh12" },
      { publicKey: "pk_test_abcdefgh12", secretKey: "sk_live_abcdefgh12" },
    ])
      await expect(runTriggerScenario("payin.approved", { url: server.url, keys })).rejects.toThrow(
        /live keys/,
      );
    expect(server.hits).toEqual([]);
  });

  it("refuses an unknown scenario listing the names, and a choice the scenario does not offer", async () => {
    await expect(runTriggerScenario("payin.paid")).rejects.toThrow(
      /unknown scenario "payin.paid"; the scenarios are: payin.approved, payin.expired, .*payout.canceled/,
    );
    await expect(runTriggerScenario("payin.3ds", { method: "PIX" })).rejects.toThrow(
      "payin.3ds takes no --method",
    );
    await expect(runTriggerScenario("payin.refused", { method: "PIX" })).rejects.toThrow(
      "payin.refused takes --method OPEN_FINANCE|CREDIT_CARD, not PIX",
    );
  });

  it("says nothing answers when no server listens", async () => {
    const server = await serve(404, "{}");
    await stop(servers.pop() as Server);
    await expect(runTriggerScenario("payin.approved", { url: server.url })).rejects.toThrow(
      /nothing answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});
