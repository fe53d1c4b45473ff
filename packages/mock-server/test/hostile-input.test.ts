// Regression tests of the 500s the fuzz suite (fuzz.test.ts) found: each input here once answered
// INTERNAL_ERROR, broke the mock until reset, or killed the process (issue 10, "No input may produce a 500").
import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createEngine,
  createMockServer,
  MockControlError,
  type MockEngine,
  samplePayin,
} from "../src/index.js";
import { basic } from "./fixtures.js";

const BASE = "http://mock.test";

async function send(engine: MockEngine, method: string, path: string, body?: string, authorization?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (authorization) headers.authorization = authorization;
  const res = await engine.handle(new Request(BASE + path, { method, headers, body }));
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), body: JSON.parse(text) };
}

describe("hostile input through the engine", () => {
  let engine: MockEngine;
  let internal: unknown[];
  let auth: string;
  beforeEach(() => {
    internal = [];
    engine = createEngine({ autoAdvance: false, onError: (error) => internal.push(error) });
    auth = basic(engine.account);
  });
  afterEach(() => {
    engine.close();
    expect(internal).toEqual([]);
  });

  const createPayin = () => send(engine, "POST", "/payin", JSON.stringify(samplePayin("PIX")), auth);

  it.each([
    ["null", "null"],
    ["an array", "[1]"],
    ["a string", '"now"'],
    ["a number", "5"],
    ["a boolean", "true"],
  ])(
    "answers 400 naming the body when a body is %s, on the API and on every control call that reads one",
    async (kind, text) => {
      for (const path of [
        "/_mock/clock",
        "/_mock/faults",
        "/_mock/rate-limit",
        "/_mock/accounts",
        "/_mock/pix-keys",
        `/_mock/accounts/${engine.account.accountId}/settings`,
        `/_mock/accounts/${engine.account.accountId}/webhook-secret`,
      ]) {
        const res = await send(engine, "POST", path, text);
        expect([path, res.status, res.body]).toEqual([
          path,
          400,
          {
            code: "INVALID_DATA",
            message: `the request body must be a JSON object, not ${kind}`,
            details: [{ path: "", message: "must be a JSON object" }],
          },
        ]);
      }
      const payin = await send(engine, "POST", "/payin", text, auth);
      expect([payin.status, payin.body.details]).toEqual([
        400,
        [{ path: "", message: "must be a JSON object" }],
      ]);
    },
  );

  it("refuses an advanceMs that would leave the Date range, and keeps answering afterwards", async () => {
    const res = await send(
      engine,
      "POST",
      "/_mock/clock",
      JSON.stringify({ advanceMs: 9_007_199_254_740_991 }),
    );
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: "advanceMs", message: "must be at most 253402300799999" }]);
    expect((await createPayin()).status).toBe(201);
    expect((await send(engine, "GET", "/_mock/clock")).status).toBe(200);
  });

  it("takes clock times from 1970 to 9999 only, and no advance past 9999-12-31", async () => {
    for (const now of ["0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "10000-01-01"]) {
      const res = await send(engine, "POST", "/_mock/clock", JSON.stringify({ now }));
      expect([now, res.status, res.body.details?.[0]?.path]).toEqual([now, 400, "now"]);
    }
    const last = await send(
      engine,
      "POST",
      "/_mock/clock",
      JSON.stringify({ now: "9999-12-31T23:59:59.000Z" }),
    );
    expect([last.status, last.body.now.slice(0, 10)]).toEqual([200, "9999-12-31"]);
    const past = await send(engine, "POST", "/_mock/clock", JSON.stringify({ advanceMs: 86_400_000 }));
    expect([past.status, past.body.message]).toEqual([
      400,
      "advanceMs would move the clock past 9999-12-31T23:59:59.999Z",
    ]);
    const first = await send(engine, "POST", "/_mock/clock", JSON.stringify({ now: "1970-01-01" }));
    expect([first.status, first.body.now.slice(0, 10)]).toEqual([200, "1970-01-01"]);
    expect((await createPayin()).status).toBe(201);
  });

  it("refuses clock values that are not times without converting them (direct control)", async () => {
    for (const now of [{ toString: 1 }, [{ toString: {} }], new Date(8.64e15), -1, Number.NaN]) {
      const error = await engine.control.setClock({ now: now as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MockControlError);
      expect((error as MockControlError).details?.[0]?.path).toBe("now");
    }
  });

  it("refuses __proto__ and constructor keys where account settings are read", async () => {
    const accountId = engine.account.accountId;
    const cases: [string, string, string][] = [
      ["/_mock/accounts", '{"fees":{"payin":{"__proto__":{"flatCents":1}}}}', "fees.payin.__proto__"],
      [
        `/_mock/accounts/${accountId}/settings`,
        '{"fees":{"payin":{"__proto__":{"flatCents":1}}}}',
        "fees.payin.__proto__",
      ],
      [
        `/_mock/accounts/${accountId}/settings`,
        '{"fees":{"payin":{"constructor":{"flatCents":1}}}}',
        "fees.payin.constructor",
      ],
      ["/_mock/accounts", '{"__proto__":{"balance":1}}', "__proto__"],
      [`/_mock/accounts/${accountId}/settings`, '{"limits":{"constructor":{}}}', "limits.constructor"],
    ];
    for (const [path, text, field] of cases) {
      const res = await send(engine, "POST", path, text);
      expect([path, res.status, res.body.details]).toEqual([
        path,
        400,
        [{ path: field, message: "is not a known field" }],
      ]);
    }
    const fees = (await send(engine, "GET", `/_mock/accounts/${accountId}`)).body.fees.payin;
    expect(Object.getPrototypeOf(fees)).toBe(Object.prototype);
    expect(Object.keys(fees).sort()).toEqual(["BOLETO", "CREDIT_CARD", "OPEN_FINANCE", "PIX"]);
  });

  it("caps a fault's path at 2048 characters and the faults armed at 1000", async () => {
    const long = await send(
      engine,
      "POST",
      "/_mock/faults",
      JSON.stringify({ path: `/${"x".repeat(2048)}` }),
    );
    expect([long.status, long.body.details?.[0]?.path]).toEqual([400, "path"]);
    const fits = await send(
      engine,
      "POST",
      "/_mock/faults",
      JSON.stringify({ path: `/${"x".repeat(2047)}` }),
    );
    expect(fits.status).toBe(201);
    for (let i = 1; i < 1000; i++) await engine.control.addFault({ path: `/nowhere/${i}` });
    const full = await send(engine, "POST", "/_mock/faults", JSON.stringify({ path: "/payin", status: 503 }));
    expect([full.status, full.body.message]).toEqual([
      400,
      "at most 1000 faults may be armed; clear them first",
    ]);
    expect((await createPayin()).status).toBe(201);
    await engine.control.clearFaults();
    expect((await send(engine, "POST", "/_mock/faults", JSON.stringify({ path: "/payin" }))).status).toBe(
      201,
    );
  });

  it("refuses an open finance decision or return URL that is not a string", async () => {
    const created = await send(engine, "POST", "/payin", JSON.stringify(samplePayin("OPEN_FINANCE")), auth);
    const path = `/_mock/open-finance/${created.body.id}`;
    // The page's own token, as its form would post it (checked before the decision is read).
    const page = await (await engine.handle(new Request(`http://mock.test${path}`))).text();
    const token = /name="token" value="([^"]+)"/.exec(page)?.[1];
    const decision = await send(engine, "POST", path, `{"decision":{"toString":true},"token":"${token}"}`);
    expect([decision.status, decision.body.details]).toEqual([
      400,
      [{ path: "decision", message: "must be one of approve, deny" }],
    ]);
    const returnUrl = await send(
      engine,
      "POST",
      path,
      `{"decision":"approve","returnUrl":{"toString":1},"token":"${token}"}`,
    );
    expect([returnUrl.status, returnUrl.body.details]).toEqual([
      400,
      [{ path: "returnUrl", message: "must be a string" }],
    ]);
    expect((await engine.control.payins()).find((p) => p.id === created.body.id)?.status).toBe("PENDING");
  });
});

describe("the clock at the end of its range with a webhook retry pending", () => {
  it("runs the retry at the moved time without an uncaught RangeError", async () => {
    const uncaught: unknown[] = [];
    const onError = (error: unknown) => uncaught.push(error);
    process.on("unhandledRejection", onError);
    process.on("uncaughtException", onError);
    let calls = 0;
    const engine = createEngine({
      autoAdvance: false,
      fetch: async () => {
        calls += 1;
        return new Response("down", { status: 500 });
      },
    });
    try {
      const payin = await send(
        engine,
        "POST",
        "/payin",
        JSON.stringify(samplePayin("PIX", { webhookUrl: "http://receiver.test/hooks" })),
        basic(engine.account),
      );
      await engine.control.payPayin(payin.body.id);
      await engine.control.flushWebhooks();
      const before = calls;
      expect(before).toBeGreaterThan(0);
      // The retry is due once the clock moves: past the Date range this once threw from a timer.
      const moved = await engine.control
        .setClock({ advanceMs: 9_007_199_254_740_991 })
        .catch((e: unknown) => e);
      expect((moved as MockControlError).code).toBe("INVALID_DATA");
      await engine.control.setClock({ now: "9999-12-31T00:00:00Z" });
      await engine.control.flushWebhooks();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(calls).toBeGreaterThan(before);
      const attempts = (await engine.control.webhooks()).flatMap((d) => d.attempts.map((a) => a.at));
      expect(attempts.some((at) => at.startsWith("9999-12-31"))).toBe(true);
      expect(uncaught).toEqual([]);
    } finally {
      engine.close();
      process.off("unhandledRejection", onError);
      process.off("uncaughtException", onError);
    }
  });
});

describe("hostile Host headers over node:http", () => {
  function get(url: string, path: string, headers: Record<string, string>) {
    const { hostname, port } = new URL(url);
    return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: hostname, port, path, headers, setHost: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers["content-type"]),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      });
      req.on("error", reject);
      req.end();
    });
  }

  it.each(["a b", "[::1", "host:99999", "", "x@y", "127.0.0.1:1/path", "exa mple.com"])(
    "answers 400 naming the Host for %j, never 500",
    async (host) => {
      await using mock = await createMockServer({ autoAdvance: false });
      const res = await get(mock.url, "/_mock/acquirer/three-ds.js", { host });
      expect(res.status).toBe(400);
      expect(res.type).toBe("application/json; charset=utf-8");
      expect(JSON.parse(res.body)).toEqual({
        code: "INVALID_DATA",
        message: "the Host header must be a host name or address with an optional port",
        details: [{ path: "Host", message: "must be a host name or address with an optional port" }],
      });
    },
  );

  it.each(["localhost", "localhost:3000", "127.0.0.1:80", "[::1]:4010", "mock_server.internal"])(
    "serves the 3DS script for the well-formed Host %j",
    async (host) => {
      // a name other than loopback is served once allowed (test/host-allow-list.test.ts)
      await using mock = await createMockServer({
        autoAdvance: false,
        allowedHosts: ["mock_server.internal"],
      });
      const res = await get(mock.url, "/_mock/acquirer/three-ds.js", { host });
      expect([res.status, res.type]).toEqual([200, "application/javascript; charset=utf-8"]);
    },
  );

  it("answers headers over node's limit with a JSON 431, not an empty body", async () => {
    await using mock = await createMockServer({ autoAdvance: false });
    const res = await get(mock.url, "/payin", {
      host: "localhost",
      authorization: `Basic ${"A".repeat(20_000)}`,
    });
    expect([res.status, res.type]).toEqual([431, "application/json; charset=utf-8"]);
    expect(JSON.parse(res.body)).toEqual({
      code: "INVALID_DATA",
      message: "the request headers exceed the server's limit",
    });
  });
});
