import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { spawnGroup } from "../../../scripts/processes.mjs";
import { type DoctorReport, runWebhookDoctor } from "../src/index.js";
import { parseDoctorArgs } from "../src/transports/node/args.js";
import { mockCli } from "./cli-bundle.js";

const SECRET = `whsec_${Buffer.from("doctor-test-secret-of-32-bytes!!").toString("base64")}`;
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void | Promise<void>;

async function receiver(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver done right: verify raw bytes, claim the id (409 while in progress), keep final statuses. */
function safeHandler(opts: { ackInProgress?: boolean; parseFirst?: boolean; holdMs?: number } = {}) {
  const wh = new Webhook(SECRET);
  const seen = new Map<string, "running" | "done">();
  const states = new Map<string, { status: string; updatedAt: string }>();
  const handler: Handler = async (req, body, res) => {
    if (req.method === "GET") {
      const id = new URL(req.url ?? "/", "http://x").searchParams.get("id") ?? "";
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(states.get(id) ?? {}));
      return;
    }
    let event: { id: string; status: string; updatedAt: string };
    try {
      if (opts.parseFirst) {
        event = JSON.parse(body);
        if (req.headers["webhook-signature"]) wh.verify(body, req.headers as Record<string, string>);
      } else {
        event = wh.verify(body, req.headers as Record<string, string>) as typeof event;
      }
    } catch {
      res.writeHead(400).end("bad signature");
      return;
    }
    const id = String(req.headers["webhook-id"]);
    const state = seen.get(id);
    if (state === "done" || (state === "running" && opts.ackInProgress)) {
      res.writeHead(200).end("duplicate");
      return;
    }
    if (state === "running") {
      res.writeHead(409).end("in progress");
      return;
    }
    seen.set(id, "running");
    await sleep(opts.holdMs ?? 400);
    const held = states.get(event.id);
    if (!held || held.updatedAt < event.updatedAt)
      states.set(event.id, { status: event.status, updatedAt: event.updatedAt });
    seen.set(id, "done");
    res.writeHead(200).end("ok");
  };
  return handler;
}

const failed = (r: DoctorReport) => r.cases.filter((c) => c.required && !c.passed).map((c) => c.name);

describe("runWebhookDoctor", () => {
  it("passes a safe receiver, out-of-order checked through --state-url", async () => {
    const url = await receiver(safeHandler());
    const report = await runWebhookDoctor({ url, secret: SECRET, stateUrl: url, timeoutMs: 10_000 });
    expect(failed(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.cases.map((c) => c.name)).toEqual([
      "valid-payin",
      "spaced-body",
      "reordered-fields",
      "escaped-unicode",
      "valid-payout",
      "duplicate",
      "in-progress-duplicate",
      "tampered-body",
      "wrong-secret",
      "unsigned",
      "stale-timestamp",
      "future-timestamp",
      "out-of-order",
      "charset-content-type",
      "response-time",
    ]);
    const order = report.cases.find((c) => c.name === "out-of-order");
    expect(order).toMatchObject({ required: true, passed: true });
    expect(order?.got).toContain("state: COMPLETED");
  });

  it("fails a receiver that accepts anything on every signature case", async () => {
    const url = await receiver((_req, _body, res) => void res.writeHead(200).end());
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    expect(failed(report)).toEqual([
      "tampered-body",
      "wrong-secret",
      "unsigned",
      "stale-timestamp",
      "future-timestamp",
    ]);
    expect(report.ok).toBe(false);
    expect(report.cases.find((c) => c.name === "unsigned")?.fix).toMatch(/signature/);
  });

  // docs/webhooks.md's first warning: express.json(), then verify JSON.stringify(req.body). A compact
  // ASCII body comes back byte for byte, so only bytes a re-serialization changes tell it apart.
  it("fails a receiver that verifies the parsed body written again, naming the mistake", async () => {
    const wh = new Webhook(SECRET);
    const url = await receiver((req, body, res) => {
      const parsed = JSON.parse(body) as unknown; // what express.json() leaves in req.body
      try {
        wh.verify(JSON.stringify(parsed), req.headers as Record<string, string>);
      } catch {
        return void res.writeHead(400).end("bad signature");
      }
      res.writeHead(200).end("ok");
    });
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    // parse-then-stringify keeps the field order it read: reordered fields come back as sent
    expect(failed(report)).toEqual(expect.arrayContaining(["spaced-body", "escaped-unicode"]));
    expect(failed(report)).not.toContain("valid-payin");
    expect(failed(report)).not.toContain("reordered-fields");
    const fix = report.cases.find((c) => c.name === "spaced-body")?.fix ?? "";
    expect(fix).toContain("refused this well-signed one (400)");
    expect(fix).toContain("JSON.stringify(req.body) after express.json()");
    expect(fix).toContain('express.raw({ type: "application/json" })');
  });

  it("fails a receiver that rebuilds the event from its fields before verifying, on every raw-bytes case", async () => {
    const wh = new Webhook(SECRET);
    const url = await receiver((req, body, res) => {
      const e = JSON.parse(body) as Record<string, unknown>;
      // an object rebuilt in the receiver's own field order, as a schema's parse gives it
      const rebuilt = Object.fromEntries(
        Object.keys(e)
          .sort()
          .map((key) => [key, e[key]]),
      );
      try {
        wh.verify(JSON.stringify(rebuilt), req.headers as Record<string, string>);
      } catch {
        return void res.writeHead(400).end("bad signature");
      }
      res.writeHead(200).end("ok");
    });
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    for (const name of ["spaced-body", "reordered-fields", "escaped-unicode"])
      expect(
        report.cases.find((c) => c.name === name),
        name,
      ).toMatchObject({ required: true, passed: false });
  });

  it("fails a receiver that parses JSON and skips verification when the signature is missing", async () => {
    const url = await receiver(safeHandler({ parseFirst: true }));
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    expect(failed(report)).toEqual(["unsigned"]);
  });

  it("fails a receiver that acknowledges an in-progress duplicate", async () => {
    // held for a second, so that on a busy machine the copy still arrives well inside the first one's
    // handling: answers under 100 ms apart are "too fast to tell", which the doctor does not fail
    const url = await receiver(safeHandler({ ackInProgress: true, holdMs: 1_000 }));
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    expect(failed(report)).toEqual(["in-progress-duplicate"]);
  });

  it("fails a receiver that never answers, within the given timeout", async () => {
    const url = await receiver(() => undefined);
    const started = Date.now();
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 150 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(failed(report)).toContain("valid-payin");
    expect(failed(report)).toContain("response-time");
    expect(report.cases.find((c) => c.name === "valid-payin")?.got).toBe("no answer within 150 ms");
  });

  it("says a 500 is the handler throwing, shows its first line, and fails two 500s to one delivery", async () => {
    // Verifies like a safe receiver, then its business logic throws (the recipe that confirmed the
    // doctor's made-up ids and let NotFoundError escape).
    const wh = new Webhook(SECRET);
    const url = await receiver((req, body, res) => {
      try {
        wh.verify(body, req.headers as Record<string, string>);
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(500).end("NotFoundError: No payin pi_01 exists\n    at confirm (paykit.ts:23)");
    });
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    const payin = report.cases.find((c) => c.name === "valid-payin");
    expect(payin?.got).toMatch(/^500 in \d+ ms: "NotFoundError: No payin pi_01 exists"$/);
    expect(payin?.fix).toMatch(/^your handler threw \(500: "NotFoundError: No payin pi_01 exists"\)/);
    expect(payin?.fix).toContain("acknowledge it");
    expect(payin?.fix).not.toMatch(/signature|whsec_/);
    const concurrent = report.cases.find((c) => c.name === "in-progress-duplicate");
    expect(concurrent).toMatchObject({ required: true, passed: false });
    expect(concurrent?.fix).toMatch(/^your handler threw \(500/);
    expect(failed(report)).toEqual([
      "valid-payin",
      "spaced-body",
      "reordered-fields",
      "escaped-unicode",
      "valid-payout",
      "duplicate",
      "in-progress-duplicate",
      "charset-content-type",
    ]);
    // the raw-bytes cases name the thrown error, not the re-serialization, when the handler throws
    expect(report.cases.find((c) => c.name === "spaced-body")?.fix).toMatch(/^your handler threw \(500/);
  });

  it.each([
    ["answers 500 to everything", 500, "tampered-body", "your handler threw (500) instead of refusing"],
    ["answers 500 to everything", 500, "valid-payin", "your handler threw (500); its log has the stack"],
    ["has no such route", 404, "valid-payin", "nothing handles POST at http://127.0.0.1:"],
    ["redirects", 308, "valid-payout", "the URL redirects (308)"],
    ["redirects", 308, "wrong-secret", "the URL redirects (308)"],
  ])(
    "a receiver that %s (%i) hears it in %s's fix, not 'verify the signature'",
    async (_, status, name, fix) => {
      const url = await receiver((_req, _body, res) => void res.writeHead(status).end());
      const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
      expect(report.cases.find((c) => c.name === name)).toMatchObject({ passed: false });
      expect(report.cases.find((c) => c.name === name)?.fix).toContain(fix);
      expect(report.ok).toBe(false);
    },
  );

  it("fails one 2xx and one 500 to two copies sent at once (409 expected for the second)", async () => {
    let running = false;
    const url = await receiver(async (_req, _body, res) => {
      if (running) {
        res.writeHead(500).end("lease taken");
        return;
      }
      running = true;
      await sleep(300);
      running = false;
      res.writeHead(204).end();
    });
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    const concurrent = report.cases.find((c) => c.name === "in-progress-duplicate");
    expect(concurrent).toMatchObject({ required: true, passed: false });
    expect(concurrent?.got).toMatch(/500 in \d+ ms: "lease taken"/);
    expect(concurrent?.fix).toContain("on the copy that arrived while the first was handled");
  });

  it("says nothing answered when no receiver listens at the URL", async () => {
    const url = await receiver(() => undefined);
    const closed = servers.pop() as Server;
    await new Promise((r) => closed.close(r));
    const report = await runWebhookDoctor({ url, secret: SECRET, timeoutMs: 2000 });
    expect(report.cases.find((c) => c.name === "valid-payin")?.fix).toMatch(
      /^nothing answered at http:\/\/127\.0\.0\.1:\d+\/webhooks .*is the receiver running/,
    );
  });

  it("names the bad option", async () => {
    await expect(runWebhookDoctor({ url: "ftp://x", secret: SECRET })).rejects.toThrow(/url/);
    await expect(runWebhookDoctor({ url: "http://127.0.0.1:1/", secret: "nope" })).rejects.toThrow(/secret/);
  });
});

describe("paykit-mock doctor", () => {
  it("prints the cases as JSON and exits 1 when a required case fails, 0 when all pass", async () => {
    // the CLI from src/, bundled (cli-bundle.ts)
    const cli = await mockCli();
    const run = async (url: string) => {
      // a process group, killed with this test process however it ends (scripts/processes.mjs)
      const child = spawnGroup(
        process.execPath,
        [cli, "doctor", "--url", url, "--secret", SECRET, "--json"],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      const [code] = await once(child, "exit");
      return { code, json: JSON.parse(out) as { cases: Array<Record<string, unknown>> } };
    };
    const bad = await run(await receiver((_req, _body, res) => void res.writeHead(204).end()));
    expect(bad.code).toBe(1);
    expect(Object.keys(bad.json.cases[0] ?? {})).toEqual([
      "name",
      "required",
      "passed",
      "expected",
      "got",
      "fix",
    ]);
    expect(bad.json.cases.find((c) => c.name === "wrong-secret")).toMatchObject({
      required: true,
      passed: false,
    });
    const good = await run(await receiver(safeHandler()));
    expect(good.code).toBe(0);
  });

  it("names the missing or bad argument", () => {
    expect(() => parseDoctorArgs(["--secret", SECRET])).toThrow("--url is required");
    expect(() => parseDoctorArgs(["--url", "http://x"])).toThrow("--secret is required");
    expect(() => parseDoctorArgs(["--url", "http://x", "--secret", SECRET, "--timeout-ms", "0"])).toThrow(
      "--timeout-ms",
    );
    expect(
      parseDoctorArgs(["--url", "http://x", "--secret", SECRET, "--state-url", "http://y"]),
    ).toMatchObject({
      stateUrl: "http://y",
      json: false,
    });
  });
});
