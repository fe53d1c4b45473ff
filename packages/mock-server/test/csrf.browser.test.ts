// A hostile page on another origin, in real Chromium, tries every cross-site request a browser sends
// without a preflight against a mock without --admin-token (and a shared sandbox, whose account creation is open): form posts (url-encoded and text/plain
// JSON), no-cors fetches with Blob bodies, and framing the bank page. Nothing may change (issue 10).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, SKIP_BROWSER as skip } from "../../../tests/support/chromium.js";
import {
  createMockServer,
  type MockServer,
  type MockServerOptions,
  SAMPLE_CARD,
  samplePayin,
  samplePayout,
} from "../src/index.js";
import { basic } from "./fixtures.js";

async function post(mock: MockServer, path: string, body: unknown, keys = mock.account) {
  const res = await fetch(mock.url + path, {
    method: "POST",
    headers: { authorization: basic(keys), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { id: string; status: string };
}

/** The attacker's page: every attempt, then `window.done = true`. */
function evilPage(mockUrl: string, ids: { accountId: string; payoutId: string; payinId: string }): string {
  const targets = [
    "/_mock/reset",
    "/_mock/accounts",
    "/_mock/faults",
    `/_mock/accounts/${ids.accountId}/settings`,
    `/_mock/payouts/${ids.payoutId}/approve`,
    `/_mock/payins/${ids.payinId}/authorize`,
    "/_mock/clock",
  ];
  const json = {
    "/_mock/accounts": '{"balance":999999999}',
    "/_mock/faults": '{"path":"/payin","status":500,"times":1000}',
    [`/_mock/accounts/${ids.accountId}/settings`]: '{"kycApproved":false}',
    [`/_mock/payins/${ids.payinId}/authorize`]: '{"approve":true}',
    "/_mock/clock": '{"advanceMs":86400000}',
  } as Record<string, string>;
  return `<!doctype html><html><body>
<iframe name="sink" style="display:none"></iframe>
<iframe id="bank" src="${mockUrl}/_mock/open-finance/${ids.payinId}"></iframe>
<iframe id="dashboard" src="${mockUrl}/_mock/dashboard"></iframe>
<script>
(async () => {
  const mock = ${JSON.stringify(mockUrl)};
  const targets = ${JSON.stringify(targets)};
  const json = ${JSON.stringify(json)};
  function submit(path, enctype, name, value) {
    const form = document.createElement("form");
    form.method = "POST"; form.action = mock + path; form.target = "sink"; form.enctype = enctype;
    const input = document.createElement("input"); input.name = name; input.value = value; form.appendChild(input);
    document.body.appendChild(form); form.submit();
  }
  for (const path of targets) {
    const body = json[path] || "{}";
    // A text/plain form whose single field serializes to JSON: name + "=" + value.
    submit(path, "text/plain", body.slice(0, -1) + ',"x":"', '"}');
    submit(path, "application/x-www-form-urlencoded", "approve", "true");
    await new Promise((r) => setTimeout(r, 50));
    for (const type of ["application/json", "text/plain", ""]) {
      try { await fetch(mock + path, { method: "POST", mode: "no-cors", body: new Blob([body], { type }) }); } catch {}
    }
    try { await fetch(mock + path, { method: "POST", mode: "no-cors" }); } catch {}
    try { await fetch(mock + path, { method: "POST", headers: { "content-type": "application/json" }, body }); } catch {}
  }
  // The bank page's decision, posted by this page instead of the bank's own form.
  submit("/_mock/open-finance/${ids.payinId}", "application/x-www-form-urlencoded", "decision", "approve");
  await new Promise((r) => setTimeout(r, 500));
  window.done = true;
})();
</script></body></html>`;
}

// Also a shared sandbox, where creating an account is an open control call: still not from another site.
const MODES: [string, MockServerOptions][] = [
  ["without --admin-token", {}],
  ["a shared sandbox (--admin-token T --shared)", { adminToken: "team-admin-token-1", sharedSandbox: true }],
];

describe.skipIf(skip).each(MODES)("a hostile page on another origin, in Chromium, %s", (_mode, options) => {
  let mock: MockServer;
  let evil: Server;
  let evilUrl: string;
  let browser: Browser;
  let ids: { accountId: string; payoutId: string; payinId: string };

  beforeAll(async () => {
    mock = await createMockServer({ autoAdvance: false, ...options });
    const manual = await mock.control.createAccount({ payoutApproval: "manual", balance: 100_000 });
    const payout = await post(mock, "/payout", samplePayout(), manual);
    const payin = await post(mock, "/payin", samplePayin("OPEN_FINANCE"));
    ids = { accountId: manual.accountId, payoutId: payout.id, payinId: payin.id };
    evil = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(evilPage(mock.url, ids));
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    // localhost, not 127.0.0.1: another site than the mock's, as an attacker's page would be.
    evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    await mock?.close();
  });

  it("changes nothing: no reset, no account, no fault, KYC kept, payout and payin undecided, clock unmoved", async () => {
    const accountsBefore = await mock.control.accounts();
    const clockBefore = Date.parse((await mock.control.clock()).now);
    const page = await browser.newPage();
    const refused: number[] = [];
    page.on("response", (response) => {
      if (response.url().startsWith(mock.url) && response.request().method() === "POST")
        refused.push(response.status());
    });
    await page.goto(evilUrl);
    await page.waitForFunction(() => (window as { done?: boolean }).done === true, undefined, {
      timeout: 20_000,
    });

    expect(await mock.control.accounts()).toHaveLength(accountsBefore.length);
    expect((await mock.control.getAccount(ids.accountId)).kycApproved).toBe(true);
    expect(await mock.control.faults()).toEqual([]);
    expect((await mock.control.payouts(ids.accountId))[0]?.status).toBe("AWAITING_APPROVAL");
    expect((await mock.control.payins(mock.account.accountId))[0]?.status).toBe("PENDING");
    expect(Date.parse((await mock.control.clock()).now) - clockBefore).toBeLessThan(60_000);
    // Every attempt the page made was answered with a refusal, never a success.
    expect(refused.length).toBeGreaterThan(20);
    expect(refused.filter((status) => status < 400)).toEqual([]);
    await page.close();
  }, 120_000);

  it("cannot frame the bank page or the dashboard", async () => {
    const page = await browser.newPage();
    await page.goto(evilUrl);
    await page.waitForFunction(() => (window as { done?: boolean }).done === true, undefined, {
      timeout: 20_000,
    });
    const framed = [];
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const content = await frame.content().catch(() => "");
      if (content.includes("Autorizar pagamento") || content.includes("dashboard")) framed.push(frame.url());
    }
    expect(framed).toEqual([]);
    await page.close();
  }, 120_000);

  it("the 3DS challenge names its buttons Approve, Reject and Cancel, and wraps a long transaction id at 420 px", async () => {
    const card = samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000003220" } });
    const payin = (await post(mock, "/payin", card)) as unknown as { threeDSecureTransactionId: string };
    const page = await browser.newPage({ viewport: { width: 420, height: 800 } });
    const origin = new URL(evilUrl).origin;
    await page.goto(
      `${mock.url}/_mock/acquirer/challenge?tx=${encodeURIComponent(payin.threeDSecureTransactionId)}&origin=${encodeURIComponent(origin)}`,
    );
    for (const name of ["Approve", "Reject", "Cancel"]) {
      expect(await page.getByRole("button", { name, exact: true }).count(), name).toBe(1);
    }
    // The longest id an acquirer might send: nothing in the card may overflow the 420 px viewport.
    const overflow = await page.evaluate(() => {
      const dd = [...document.querySelectorAll("dd")].at(-1)!;
      dd.textContent = "tds_".padEnd(200, "0123456789abcdef");
      const main = document.querySelector("main")!;
      return { page: document.documentElement.scrollWidth, main: main.scrollWidth - main.clientWidth };
    });
    expect(overflow.page).toBeLessThanOrEqual(420);
    expect(overflow.main).toBeLessThanOrEqual(0);
    await page.close();
  }, 120_000);
});
