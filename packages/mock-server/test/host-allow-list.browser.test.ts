// DNS rebinding in real Chromium (issue 21). An attacker's page is served under its own name,
// rebind.test, and that name then resolves to the mock, so the page's same-origin fetches reach the
// mock and their answers are readable. Chromium's resolver maps rebind.test to 127.0.0.1; a front on
// loopback plays the attacker's server and the rebinding: it serves the page at `/` and hands every
// other request to the mock as received, Host included (a page served from a public address would
// also meet Chromium's Private Network Access block, which Firefox and Safari do not have: the mock must
// not rely on it). The mock refuses every /_mock request under that name: the page reads nothing. The
// same page under an allowed name (localhost, or rebind.test once allowed) reads the accounts, records
// and dashboard, which shows the refusal is what stops it.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, SKIP_BROWSER as skip } from "../../../tests/support/chromium.js";
import { createMockServer, type MockServer, type MockServerOptions, samplePayin } from "../src/index.js";
import { basic } from "./fixtures.js";

/** What the page fetches from its own origin: keys, records, deliveries and the dashboard. */
const PATHS = ["/_mock/accounts", "/_mock/payins", "/_mock/webhooks", "/_mock/dashboard"];

/** The attacker's page: fetches each path from its own origin, then sets `window.result`. */
const ATTACKER_PAGE = `<!doctype html><html><body><script>
(async () => {
  const result = {};
  for (const path of ${JSON.stringify(PATHS)}) {
    try {
      const res = await fetch(path);
      result[path] = { status: res.status, text: await res.text() };
    } catch (error) {
      result[path] = { status: 0, text: String(error) };
    }
  }
  window.result = result;
})();
</script></body></html>`;

type Read = Record<string, { status: number; text: string }>;

describe.skipIf(skip)("a page on another name that resolves to the mock (DNS rebinding), in Chromium", () => {
  let browser: Browser;
  const mocks: MockServer[] = [];
  const fronts: Server[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ args: ["--host-resolver-rules=MAP rebind.test 127.0.0.1"] });
  }, 120_000);
  afterEach(async () => {
    for (const server of fronts.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await Promise.all(mocks.splice(0).map((mock) => mock.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A mock on 127.0.0.1 with a payin; its account id, public key and payin id are what a reader would take. */
  async function start(options: MockServerOptions = {}) {
    const mock = await createMockServer({ autoAdvance: false, ...options });
    mocks.push(mock);
    const res = await fetch(`${mock.url}/payin`, {
      method: "POST",
      headers: { authorization: basic(mock.account), "content-type": "application/json" },
      body: JSON.stringify(samplePayin("PIX")),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    return { mock, secrets: [mock.account.accountId, mock.account.publicKey, id] };
  }

  /** The attacker's server after rebinding: `/` is its page, anything else goes to the mock untouched. */
  async function front(mock: MockServer): Promise<number> {
    const target = new URL(mock.url);
    const server = createServer((req, res) => {
      if (req.url === "/") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ATTACKER_PAGE);
        return;
      }
      const upstream = httpRequest(
        {
          hostname: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
    fronts.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  /** Opens the attacker's page at `http://<name>:<front port>/` and returns what it read. */
  async function readAs(mock: MockServer, name: string): Promise<Read> {
    const port = await front(mock);
    const page = await browser.newPage();
    try {
      await page.goto(`http://${name}:${port}/`);
      await page.waitForFunction(() => (window as { result?: unknown }).result !== undefined, undefined, {
        timeout: 20_000,
      });
      return (await page.evaluate(() => (window as unknown as { result: Read }).result)) as Read;
    } finally {
      await page.close();
    }
  }

  it("reads nothing: every /_mock answer is 403 FORBIDDEN_HOST, with no key or record in it", async () => {
    const { mock, secrets } = await start();
    const read = await readAs(mock, "rebind.test");
    expect(Object.keys(read).sort()).toEqual([...PATHS].sort());
    for (const path of PATHS) {
      const { status, text } = read[path]!;
      expect(status, path).toBe(403);
      expect(JSON.parse(text), path).toMatchObject({ code: "FORBIDDEN_HOST" });
      for (const secret of secrets) expect(text, path).not.toContain(secret);
    }
  }, 120_000);

  it("a shared sandbox refuses the name before any credential is asked for, the dashboard included", async () => {
    const { mock } = await start({ adminToken: "team-admin-token-1", sharedSandbox: true });
    const read = await readAs(mock, "rebind.test");
    for (const path of PATHS) {
      expect(read[path]!.status, path).toBe(403);
      expect(JSON.parse(read[path]!.text), path).toMatchObject({ code: "FORBIDDEN_HOST" });
    }
  }, 120_000);

  it.each([
    ["from localhost", "localhost", {}],
    [
      "from rebind.test once allowed (--allowed-hosts rebind.test)",
      "rebind.test",
      { allowedHosts: ["rebind.test"] },
    ],
  ] as [string, string, MockServerOptions][])(
    "the same page reads the keys and records %s",
    async (_label, name, options) => {
      const { mock, secrets } = await start(options);
      const read = await readAs(mock, name);
      for (const path of PATHS) expect(read[path]!.status, path).toBe(200);
      const [accountId, publicKey, payinId] = secrets as [string, string, string];
      expect(read["/_mock/accounts"]!.text).toContain(accountId);
      expect(read["/_mock/accounts"]!.text).toContain(publicKey);
      expect(read["/_mock/payins"]!.text).toContain(payinId);
      expect(read["/_mock/dashboard"]!.text).toContain("<!doctype html>");
    },
    120_000,
  );
});
