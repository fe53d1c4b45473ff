// `paykit-mock listen`, the command: its reading of arguments and environment, its lines, and the CLI in
// its own process against a real mock, stopped with Ctrl-C (SIGINT).
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import { createMockServer, type MockServer } from "../src/index.js";
import { TriggerRefusedError } from "../src/scenarios/target.js";
import { COMMANDS, USAGE } from "../src/transports/node/args.js";
import { formatDelivery, LISTEN_USAGE, parseListenArgs } from "../src/transports/node/listen-command.js";
import { mockCli } from "./cli-bundle.js";
import { basic, pixPayin } from "./fixtures.js";

const KEYS = "pk_test_listencli001:sk_test_listencli001";
const TO = ["--forward-to", "http://localhost:3000/webhooks"];

describe("paykit-mock listen's arguments", () => {
  it.each([
    [[...TO, "--keys", KEYS], { url: "http://127.0.0.1:4010", forwardTo: "http://localhost:3000/webhooks" }],
    [
      [
        ...TO,
        "--keys",
        KEYS,
        "--url",
        "https://sandbox.team.example/",
        "--events",
        "payin.approved, payout.*",
      ],
      { url: "https://sandbox.team.example", events: ["payin.approved", "payout.*"] },
    ],
  ])("reads %j", (argv, expected) => {
    const options = parseListenArgs(argv);
    if (options === "help") throw new Error("not help");
    expect(options.listen).toMatchObject({
      ...expected,
      keys: { publicKey: "pk_test_listencli001", secretKey: "sk_test_listencli001" },
    });
  });

  it("takes the keys and the admin token from the environment", () => {
    const options = parseListenArgs(TO, {
      PAYKIT_PUBLIC_KEY: "pk_test_listencli001",
      PAYKIT_SECRET_KEY: "sk_test_listencli001",
      PAYKIT_MOCK_ADMIN_TOKEN: "token",
    });
    expect(options !== "help" && options.listen).toMatchObject({ adminToken: "token" });
  });

  it.each([
    [["--keys", KEYS], /--forward-to/],
    [TO, /give the account's keys/],
    [[...TO, "--keys", "pk_test_listencli001"], /pk_test_… and sk_test_…/],
    [[...TO, "--keys", KEYS, "--events", "charge.succeeded"], /--events: charge.succeeded/],
    [[...TO, "--keys", KEYS, "--url", "ftp://x"], /--url/],
    [["--forward-to", "file:///tmp/x", "--keys", KEYS], /--forward-to must be an http/],
    [[...TO, "--keys", KEYS, "extra"], /takes no argument/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseListenArgs(argv)).toThrow(message);
  });

  it("refuses live keys before anything else", () => {
    expect(() => parseListenArgs([...TO, "--keys", "pk_live_abcdefgh12:sk_live_abcdefgh12"])).toThrow(
      TriggerRefusedError,
    );
  });

  it("is listed in paykit-mock --help, and has its own", () => {
    expect(Object.keys(COMMANDS)).toContain("listen");
    expect(USAGE).toContain("paykit-mock listen --help");
    expect(parseListenArgs(["--help"])).toBe("help");
    expect(LISTEN_USAGE).toContain("--print-secret");
  });

  it("prints one line per delivery: time, event, resource, the local answer, latency, webhook-id", () => {
    const line = {
      at: "2026-11-26T12:00:01.234Z",
      event: "payin.approved",
      resourceId: "pi_01",
      status: "APPROVED",
      webhookId: "msg_01",
      deliveryId: "wh_01",
      latencyMs: 12,
    };
    expect(formatDelivery({ ...line, statusCode: 200, error: null })).toMatch(
      /^12:00:01\.234 {2}payin\.approved +pi_01 {2}<- 200 {2}12 ms {2}\[msg_01\]$/,
    );
    expect(formatDelivery({ ...line, statusCode: null, error: "ECONNREFUSED" })).toContain(
      "<- no answer (ECONNREFUSED)",
    );
  });
});

describe("paykit-mock listen, the command", () => {
  let mock: MockServer | undefined;
  let receiver: Server | undefined;
  afterEach(async () => {
    await mock?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it("prints the secret and each delivery, and on Ctrl-C hands the account's deliveries back to their URL", async () => {
    mock = await createMockServer({ autoAdvance: false });
    const secret = `whsec_${Buffer.from("the listen command's secret").toString("base64")}`;
    const keys = await mock.control.createAccount({ webhookSecret: secret });
    const got: string[] = [];
    receiver = createServer((req, res) => {
      got.push(String(req.headers["webhook-id"]));
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
    const forwardTo = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const child = spawnGroup(
      process.execPath,
      [
        await mockCli(),
        "listen",
        "--url",
        mock.url,
        "--keys",
        `${keys.publicKey}:${keys.secretKey}`,
        "--forward-to",
        forwardTo,
        "--print-secret",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      expect((await lines.next()).value).toBe(`Webhook secret: ${secret}`);
      expect((await lines.next()).value).toBe(
        `Ready: account ${keys.accountId}'s deliveries go to ${forwardTo} (Ctrl-C to stop)`,
      );
      const pay = async () => {
        const payin = (await (
          await fetch(`${mock?.url}/payin`, {
            method: "POST",
            headers: { authorization: basic(keys), "content-type": "application/json" },
            body: JSON.stringify(pixPayin({ webhookUrl: "http://127.0.0.1:9/webhooks" })),
          })
        ).json()) as { id: string };
        await mock?.control.payPayin(payin.id, { awaitWebhooks: true });
        return payin.id;
      };
      const first = await pay();
      expect((await lines.next()).value).toMatch(
        new RegExp(`payin\\.approved +${first} {2}<- 204 {2}\\d+ ms`),
      );
      child.kill("SIGINT");
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
      // stopped: the next delivery goes to its URL at once, not to a listener that is gone
      const second = await pay();
      const log = await mock.control.webhooks(keys.accountId);
      expect(log.find((d) => d.resourceId === second)?.attempts[0]).toMatchObject({ statusCode: null });
      expect(got).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
