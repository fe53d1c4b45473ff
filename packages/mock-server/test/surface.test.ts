// The mock's own surface (issue 10): 401s that name their scheme, HEAD on every GET route, control
// calls that other web pages cannot drive, and a Host header that is never trusted.
import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../src/domain/faults.js";
import { createMockServer } from "../src/index.js";
import { apiOf, basic, type Harness, openFinancePayin, startHarness, TRANSPORTS } from "./fixtures.js";

describe.each(TRANSPORTS)("the mock's surface over %s", (transport) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(transport, { autoAdvance: false });
  });
  afterEach(() => h.close());
  const send = async (path: string, init?: RequestInit) => {
    const res = await h.send(path, init);
    if (res === "dropped") throw new Error("dropped");
    return res;
  };

  it.each([
    ["GET", "/payout"],
    ["POST", "/payin"],
    ["GET", "/payin/pi_nope"],
    ["POST", "/payout"],
  ])("every 401 of the merchant API (%s %s) carries WWW-Authenticate: Basic", async (method, path) => {
    const res = await send(path, {
      method,
      headers: { authorization: basic({ publicKey: "pk_test_nobody12", secretKey: "sk_test_nobody12" }) },
      ...(method === "POST" ? { body: "{}", headers: { "content-type": "application/json" } } : {}),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="Paykit"');
  });

  it("a control 401 (admin token) names the Bearer scheme only, so a browser shows no login dialog", async () => {
    const guarded = await startHarness(transport, { autoAdvance: false, adminToken: "admin-token-123" });
    try {
      const res = (await guarded.send("/_mock/clock")) as Response;
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="Paykit mock control"');
    } finally {
      await guarded.close();
    }
  });

  it("GET /_mock/account answers the account of the request's keys, on a mock with an admin token too", async () => {
    const own = (await send("/_mock/account", { headers: { authorization: basic(h.account) } })) as Response;
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({
      accountId: h.account.accountId,
      publicKey: h.account.publicKey,
    });
    const unknown = { publicKey: "pk_test_nobody12", secretKey: "sk_test_nobody12" };
    expect((await send("/_mock/account", { headers: { authorization: basic(unknown) } })).status).toBe(404);
    const guarded = await startHarness(transport, { autoAdvance: false, adminToken: "admin-token-123" });
    try {
      const keys = { authorization: basic(guarded.account) };
      const mine = (await guarded.send("/_mock/account", { headers: keys })) as Response;
      expect([mine.status, ((await mine.json()) as { accountId: string }).accountId]).toEqual([
        200,
        guarded.account.accountId,
      ]);
      // keys read their own account and nothing else of a guarded mock
      expect(((await guarded.send("/_mock/accounts", { headers: keys })) as Response).status).toBe(401);
      expect(((await guarded.send("/_mock/account")) as Response).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it.each(["/payout", "/_mock/clock", "/_mock/accounts", "/_mock/dashboard", "/_mock/acquirer/three-ds.js"])(
    "HEAD %s answers like GET, without a body",
    async (path) => {
      const headers = { authorization: basic(h.account) };
      const get = await send(path, { headers });
      const head = await send(path, { method: "HEAD", headers });
      expect(head.status).toBe(get.status);
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
      expect(await head.text()).toBe("");
      expect(Number(head.headers.get("content-length"))).toBe(
        new TextEncoder().encode(await get.text()).byteLength,
      );
    },
  );

  it("a POST-only route lists its methods on 405", async () => {
    const res = await send("/_mock/reset", { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect((await send("/_mock/clock", { method: "PUT" })).headers.get("allow")).toBe("GET, HEAD, POST");
  });

  describe("control calls from other origins", () => {
    const attempts: [string, RequestInit][] = [
      [
        "a form post (Origin of another site)",
        {
          method: "POST",
          headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
          body: "balance=99999999",
        },
      ],
      [
        "a no-cors fetch with a text body",
        {
          method: "POST",
          headers: { origin: "https://evil.example", "content-type": "text/plain" },
          body: '{"balance":99999999}',
        },
      ],
      ["a body-less post from another site", { method: "POST", headers: { origin: "https://evil.example" } }],
      [
        "Sec-Fetch-Site: cross-site without Origin",
        { method: "POST", headers: { "sec-fetch-site": "cross-site" } },
      ],
      ["Sec-Fetch-Site: same-site", { method: "POST", headers: { "sec-fetch-site": "same-site" } }],
      ["the literal null origin (sandboxed frame)", { method: "POST", headers: { origin: "null" } }],
    ];

    it.each(attempts)("refuses %s with 403 and changes nothing", async (_, init) => {
      const before = (await h.control.accounts()).length;
      for (const path of ["/_mock/accounts", "/_mock/reset", "/_mock/faults", "/_mock/webhooks/flush"]) {
        const res = await send(path, init);
        expect(res.status, path).toBe(403);
        expect(await res.json()).toMatchObject({ code: "FORBIDDEN_ORIGIN" });
      }
      expect(await h.control.accounts()).toHaveLength(before);
    });

    it.each([
      ["a form body", "application/x-www-form-urlencoded", "balance=1"],
      ["a text body", "text/plain", '{"balance":1}'],
      ["a multipart body", "multipart/form-data; boundary=x", "--x--"],
    ])(
      "refuses %s without Origin (415): a browser could send it without a preflight",
      async (_, type, body) => {
        const res = await send("/_mock/accounts", {
          method: "POST",
          headers: { "content-type": type },
          body,
        });
        expect(res.status).toBe(415);
      },
    );

    it("accepts body-less posts without Origin, JSON bodies, and calls from the mock's own origin", async () => {
      expect((await send("/_mock/webhooks/flush", { method: "POST" })).status).toBe(200);
      const created = await send("/_mock/accounts", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: new URL(h.base).origin,
          "sec-fetch-site": "same-origin",
        },
        body: JSON.stringify({ balance: 5 }),
      });
      expect(created.status).toBe(201);
    });
  });
});

describe("the Host header over node:http", () => {
  function rawGet(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ hostname, port, path, method: "GET", headers: { host } }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it.each(["a b", "evil.example/path", "[::1", "x:99999999", "<script>"])(
    "answers 400 to the malformed Host %j",
    async (host) => {
      await using mock = await createMockServer({ autoAdvance: false });
      const res = await rawGet(mock.url, "/_mock/acquirer/three-ds.js", host);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: "INVALID_DATA" });
    },
  );

  it("hands out URLs from its listening address, never from a hostile Host", async () => {
    // evil.example is allowed here to show what the script says; by default /_mock refuses it
    // (test/host-allow-list.test.ts)
    await using mock = await createMockServer({ autoAdvance: false, allowedHosts: ["evil.example"] });
    const script = await rawGet(mock.url, "/_mock/acquirer/three-ds.js", "evil.example");
    expect(script.status).toBe(200);
    expect(script.body).toContain(mock.url);
    expect(script.body).not.toContain("evil.example");
    const res = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(mock.url);
      const req = httpRequest(
        {
          hostname,
          port,
          path: "/payin",
          method: "POST",
          headers: {
            host: "evil.example",
            authorization: basic(mock.account),
            "content-type": "application/json",
          },
        },
        (r) => {
          let body = "";
          r.on("data", (c) => (body += c));
          r.on("end", () => resolve(body));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(openFinancePayin()));
    });
    expect(JSON.parse(res).openFinanceRedirectUrl.startsWith(`${mock.url}/_mock/open-finance/`)).toBe(true);
  });

  it("uses --public-url (publicUrl) for the URLs it hands out and as its own origin", async () => {
    await using mock = await createMockServer({
      autoAdvance: false,
      publicUrl: "https://mock.team.example/",
    });
    const api = apiOf({ base: mock.url, send: (p, i) => fetch(mock.url + p, i) } as Harness, mock.account);
    const created = await api.post("/payin", openFinancePayin());
    expect(created.body.openFinanceRedirectUrl).toMatch(
      /^https:\/\/mock\.team\.example\/_mock\/open-finance\//,
    );
    const fromPublic = await fetch(`${mock.url}/_mock/accounts`, {
      method: "POST",
      headers: { origin: "https://mock.team.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(fromPublic.status).toBe(201);
  });
});

describe("the rate limit (when switched on)", () => {
  it("counts per authenticated account; requests without valid credentials share one bucket per client", async () => {
    const h = await startHarness("engine", { autoAdvance: false });
    try {
      await h.control.setRateLimit({ limit: 2, windowMs: 60_000 });
      const other = await h.control.createAccount({});
      const get = (authorization: string) =>
        h.send("/payout", { headers: { authorization } }) as Promise<Response>;
      const mine = basic(h.account);
      expect((await get(mine)).status).toBe(200);
      expect((await get(mine)).status).toBe(200);
      expect((await get(mine)).status).toBe(429);
      // Another account's budget is its own.
      expect((await get(basic(other))).status).toBe(200);
      // Random garbage credentials do not buy fresh budgets: one bucket for this client.
      const statuses = [];
      for (let i = 0; i < 4; i += 1)
        statuses.push((await get(`Basic ${btoa(`pk_test_x${i}:sk_test_y${i}`)}`)).status);
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await h.close();
    }
  });

  it("keeps a bounded number of windows whatever clients send", () => {
    const limiter = new RateLimiter();
    limiter.set({ limit: 1_000, windowMs: 60_000 });
    for (let i = 0; i < 12_500; i += 1) limiter.check(`client:${i}`, 1_000 + i);
    expect(limiter.size).toBeLessThanOrEqual(10_000);
    expect(limiter.size).toBeGreaterThan(8_000);
  });
});
