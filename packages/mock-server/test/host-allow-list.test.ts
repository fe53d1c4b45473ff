// The Host allow-list of the mock's own surface (issue 21): against DNS rebinding, /_mock/* (control
// API, dashboard, customer pages) answers only loopback names, IP addresses, its own names and the
// names its user added; the merchant API, which needs an account's keys, answers any Host.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { sharedPostgresUrl } from "../../../tests/support/services.js";
import { hostAllowList, parseAllowedHost } from "../src/http/host-guard.js";
import { createMockServer, type MockServer, type MockServerOptions } from "../src/index.js";
import { basic, startHarness } from "./fixtures.js";

describe("the Host allow-list's rules", () => {
  const plain = hostAllowList(["127.0.0.1"]);
  it.each([
    ["localhost"],
    ["LOCALHOST"],
    ["localhost."],
    ["localhost:4010"],
    ["app.localhost"],
    ["a.b.LOCALHOST.:3000"],
    ["127.0.0.1"],
    ["127.0.0.1:4010"],
    ["127.1.2.3:80"],
    ["2130706433:4010"], // 127.0.0.1 as one number, as a URL parser reads it
    ["[::1]"],
    ["[::1]:4010"],
    ["[0:0:0:0:0:0:0:1]:4010"],
    ["192.168.1.20:4010"], // a LAN address of a mock bound to 0.0.0.0: an address never re-resolves
    ["[fe80::1]"],
  ])("allows Host %j", (host) => {
    expect(plain.allows(host)).toBe(true);
  });

  it("allows a request without Host (HTTP/1.0: no browser sends one)", () => {
    expect(plain.allows(undefined)).toBe(true);
  });

  it.each([
    ["rebind.test"],
    ["rebind.test:4010"],
    ["localhost.rebind.test"],
    ["notlocalhost"],
    ["localhost-evil.test"],
    ["127.0.0.1.nip.io"],
    ["mock.team.example"],
    [""],
  ])("refuses Host %j", (host) => {
    expect(plain.allows(host)).toBe(false);
  });

  const team = hostAllowList(
    ["127.0.0.1", "https://public.example/", "mybox.lan", "http://peer-a.internal:4010"],
    ["mock.team.example", ".preview.example", "*.wild.example"],
  );
  it.each([
    ["mock.team.example", true],
    ["MOCK.Team.Example.:443", true],
    ["public.example", true],
    ["public.example:8443", true],
    ["mybox.lan:4010", true],
    ["peer-a.internal:4010", true],
    ["preview.example", true],
    ["pr-12.preview.example", true],
    ["a.pr-12.preview.example", true],
    ["x.wild.example", true],
    ["localhost", true],
    ["team.example", false],
    ["sub.mock.team.example", false],
    ["preview.example.evil.test", false],
    ["evilpreview.example", false],
    ["rebind.test", false],
  ])("with names added, Host %j is allowed: %s", (host, allowed) => {
    expect(team.allows(host)).toBe(allowed);
  });

  it.each([
    ["https://mock.team.example"],
    ["mock.team.example:8080"],
    ["mock.team.example/path"],
    ["*"],
    ["."],
    [""],
    ["a b"],
    ["évil.test"],
    ["host.123"],
  ])("refuses the allowed-hosts entry %j", (entry) => {
    expect(() => parseAllowedHost(entry)).toThrow(/host names without scheme or port/);
  });

  it("reads allowed-hosts entries case-insensitively and without a trailing dot", () => {
    expect(parseAllowedHost("Mock.Team.Example.")).toEqual({ name: "mock.team.example", subdomains: false });
    expect(parseAllowedHost("*.Team.Example")).toEqual({ name: "team.example", subdomains: true });
  });
});

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** A request to the mock with this exact Host header. */
function send(
  url: string,
  path: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const { hostname, port } = new URL(url);
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      {
        hostname,
        port,
        path,
        method: init.method ?? "GET",
        headers: { ...init.headers, host },
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers["content-type"]),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** An HTTP/1.0 request without any Host header, the status line of its answer. */
function sendWithoutHost(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.on("end", () => resolve(text.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

const SURFACE = ["/_mock/clock", "/_mock/dashboard", "/_mock/webhooks", "/_mock/acquirer/three-ds.js"];

describe("the Host allow-list over node:http", () => {
  const mocks: MockServer[] = [];
  afterEach(async () => {
    await Promise.all(mocks.splice(0).map((mock) => mock.close()));
  });
  async function start(options: MockServerOptions = {}) {
    const mock = await createMockServer({ autoAdvance: false, ...options });
    mocks.push(mock);
    return mock;
  }

  it.each(SURFACE)(
    "refuses %s under another name with 403 FORBIDDEN_HOST naming the Host and the flag",
    async (path) => {
      const mock = await start();
      const host = `Rebind.Test:${new URL(mock.url).port}`;
      const res = await send(mock.url, path, host);
      expect([res.status, res.type]).toEqual([403, "application/json; charset=utf-8"]);
      const body = JSON.parse(res.body) as { code: string; message: string };
      expect(body.code).toBe("FORBIDDEN_HOST");
      expect(body.message).toContain(`Host "${host}"`);
      expect(body.message).toContain("--allowed-hosts rebind.test");
      expect(body.message).toContain('allowedHosts: ["rebind.test"]');
      expect(body.message).toContain("Allowed now: localhost, *.localhost, IP addresses");
    },
  );

  it("refuses HEAD and a state-changing call too, and changes nothing", async () => {
    const mock = await start();
    await mock.control.createAccount({});
    const head = await send(mock.url, "/_mock/accounts", "rebind.test", { method: "HEAD" });
    expect(head.status).toBe(403);
    const reset = await send(mock.url, "/_mock/reset", "rebind.test", { method: "POST" });
    expect(reset.status).toBe(403);
    expect(await mock.control.accounts()).toHaveLength(2);
  });

  it.each([
    "localhost",
    "localhost:4010",
    "LOCALHOST.",
    "checkout.localhost:3000",
    "127.0.0.1",
    "[::1]:4010",
  ])("serves the control API and the dashboard for Host %j", async (host) => {
    const mock = await start();
    expect((await send(mock.url, "/_mock/clock", host)).status).toBe(200);
    expect((await send(mock.url, "/_mock/dashboard", host)).status).toBe(200);
  });

  it("serves a request without Host (HTTP/1.0)", async () => {
    const mock = await start();
    expect(await sendWithoutHost(mock.url, "/_mock/clock")).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("answers the merchant API under any name: it needs the account's keys", async () => {
    const mock = await start();
    const res = await send(mock.url, "/payout", "rebind.test", {
      headers: { authorization: basic(mock.account) },
    });
    expect(res.status).toBe(200);
    const anonymous = await send(mock.url, "/payout", "rebind.test");
    expect(anonymous.status).toBe(401);
  });

  it("serves the names of allowedHosts (--allowed-hosts) and of publicUrl (--public-url)", async () => {
    const mock = await start({
      allowedHosts: ["mock.team.example", ".preview.example"],
      publicUrl: "https://public.example",
    });
    for (const host of ["mock.team.example", "pr-7.preview.example:8080", "public.example:443"])
      expect((await send(mock.url, "/_mock/clock", host)).status, host).toBe(200);
    expect((await send(mock.url, "/_mock/clock", "team.example")).status).toBe(403);
  });

  it("with an admin token, still refuses another name: the token does not stand in for the name", async () => {
    const mock = await start({ adminToken: "admin-token-123" });
    const res = await send(mock.url, "/_mock/clock", "proxy.team.example", {
      headers: { authorization: "Bearer admin-token-123" },
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).message).toContain("--allowed-hosts proxy.team.example");
  });

  it("refuses a malformed allowedHosts entry before listening", async () => {
    await expect(createMockServer({ allowedHosts: ["https://mock.team.example"] })).rejects.toThrow(
      /host names without scheme or port .*got "https:\/\/mock.team.example"/,
    );
  });
});

describe("the Host allow-list of one of two mock processes on a PostgreSQL store", () => {
  it("refuses another name at the process the client reached, and serves its own", async () => {
    await sharedPostgresUrl();
    const h = await startHarness("cluster", { autoAdvance: false });
    try {
      const token = { authorization: "Bearer cluster-harness-admin-token" };
      expect((await send(h.base, "/_mock/clock", "rebind.test", { headers: token })).status).toBe(403);
      expect((await send(h.base, "/_mock/clock", "localhost", { headers: token })).status).toBe(200);
    } finally {
      await h.close();
    }
  }, 120_000);
});
