import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createMockServer } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemo } from "../src/demo.js";
import { launchChromium, OUTPUT_DIR, SKIP_BROWSER } from "./browser.js";

let browser: Browser;

async function openDashboard(mockUrl: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  // Fail fast and name the step: a missing element is a broken page, not a slow one.
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const response = await page.goto(`${mockUrl}/_mock/dashboard`);
  expect(response?.status()).toBe(200);
  await page.waitForSelector("body[data-ready=true]");
  expect(errors).toEqual([]);
  return page;
}

describe.skipIf(SKIP_BROWSER)("the mock's dashboard in headless Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("approves a payout awaiting manual approval: AWAITING_APPROVAL → APPROVED, still debited", async () => {
    await using mock = await createMockServer({ autoAdvance: false });
    const merchant = await mock.control.createAccount({ payoutApproval: "manual", balance: 100_000 });
    const paykit = new Paykit({
      publicKey: merchant.publicKey,
      secretKey: merchant.secretKey,
      baseUrl: mock.url,
    });
    const payout = await paykit.payouts.create({
      amount: 12_345,
      pixKey: "payouts@example.com",
      pixKeyType: "EMAIL",
      referenceId: "dashboard-approval-1",
    });
    expect(payout.status).toBe("AWAITING_APPROVAL");

    const page = await openDashboard(mock.url);
    const row = `[data-payout="${payout.id}"]`;
    await page.waitForSelector(`${row}[data-status=AWAITING_APPROVAL]`);
    await page.click(`${row} [data-action=approve]`);
    await page.waitForSelector(`${row}[data-status=APPROVED]`);
    expect(await page.$(`${row} [data-action=approve]`)).toBeNull();

    const [found] = (await paykit.payouts.list({ referenceId: "dashboard-approval-1" })).data;
    expect(found?.status).toBe("APPROVED");
    expect((await mock.control.getAccount(merchant.accountId)).balance).toMatchObject({
      available: 100_000 - 12_345,
      pending: 12_345,
    });
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-payout-approved.png"), fullPage: true });
    await page.close();
  });

  it("redelivers a webhook: a new attempt with the same webhook-id, which the merchant de-duplicates", async () => {
    const merchantLog: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });
    const created = await fetch(`${demo.backend.url}/api/payins`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "PIX" }),
    }).then((r) => r.json());
    const paid = demo.backend.orders.waitFor((u) => u.type === "payin" && u.order.status === "APPROVED");
    await fetch(`${demo.backend.url}/api/dev/payins/${created.payin.id}/pay`, { method: "POST", body: "{}" });
    await paid;

    const page = await openDashboard(demo.mockUrl);
    const row = "[data-delivery][data-state=delivered]";
    await page.waitForSelector(row);
    expect(await page.textContent(`${row} [data-testid=attempt-count]`)).toBe("1 attempt(s)");
    await page.click(`${row} [data-action=redeliver]`);
    // the dashboard shows the new attempt at its next refresh: slow on a loaded machine
    await page.waitForFunction(
      () =>
        document.querySelector("[data-delivery] [data-testid=attempt-count]")?.textContent === "2 attempt(s)",
      undefined,
      { timeout: 45_000 },
    );
    expect(merchantLog.filter((line) => line.includes("already handled"))).toHaveLength(1);
    expect(demo.backend.orders.get(created.payin.id)?.status).toBe("APPROVED");
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-webhook-redelivered.png"), fullPage: true });
    await page.close();
  }, 90_000);

  it("asks for the admin token of a guarded mock and sends it as Bearer on every call", async () => {
    await using mock = await createMockServer({ autoAdvance: false, adminToken: "dashboard-admin-token" });
    const page = await openDashboard(mock.url);
    await page.waitForSelector("#token-form:not([hidden])");
    expect(await page.$(`[data-account="${mock.account.accountId}"]`)).toBeNull();
    const sent: (string | undefined)[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname !== "/_mock/dashboard") sent.push(request.headers().authorization);
    });
    // A locked dashboard does not keep polling (every 2 s) without the token: that would only collect 401s.
    await page.waitForTimeout(2_500);
    expect(sent).toEqual([]);
    await page.fill("#token", "dashboard-admin-token");
    await page.click("#token-form button");
    await page.waitForSelector(`[data-account="${mock.account.accountId}"]`);
    expect(await page.isHidden("#token-form")).toBe(true);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set(["Bearer dashboard-admin-token"]));
    await page.close();
  });

  it("on a shared sandbox, an account's keys show that account alone and move its own clock", async () => {
    await using mock = await createMockServer({
      autoAdvance: false,
      adminToken: "dashboard-admin-token",
      sharedSandbox: true,
    });
    const mine = await mock.control.createAccount({ payoutApproval: "manual", balance: 100_000 });
    const theirs = await mock.control.createAccount({ payoutApproval: "manual", balance: 100_000 });
    const payoutOf = async (keys: typeof mine, referenceId: string) =>
      new Paykit({ ...keys, baseUrl: mock.url }).payouts.create({
        amount: 5_000,
        pixKey: "payouts@example.com",
        pixKeyType: "EMAIL",
        referenceId,
      });
    const own = await payoutOf(mine, "dashboard-shared-mine");
    const other = await payoutOf(theirs, "dashboard-shared-theirs");
    const sandboxBefore = Date.parse((await mock.control.clock()).now);

    const page = await openDashboard(mock.url);
    await page.waitForSelector("#token-form:not([hidden])");
    const sent: (string | undefined)[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname !== "/_mock/dashboard") sent.push(request.headers().authorization);
    });
    await page.fill("#token", `${mine.publicKey}:${mine.secretKey}`);
    await page.click("#token-form button");
    await page.waitForSelector(`[data-payout="${own.id}"][data-status=AWAITING_APPROVAL]`);
    expect(
      await page.$$eval("[data-account]", (rows) => rows.map((r) => r.getAttribute("data-account"))),
    ).toEqual([mine.accountId]);
    expect(await page.$(`[data-payout="${other.id}"]`)).toBeNull();
    expect(await page.isDisabled("#account")).toBe(true);

    await page.click(`[data-payout="${own.id}"] [data-action=approve]`);
    await page.waitForSelector(`[data-payout="${own.id}"][data-status=APPROVED]`);
    await page.click("[data-advance='86400000']");
    await page.waitForSelector("#notice:has-text('clock moved forward')");
    const myClock = Date.parse((await mock.control.accountClock(mine.accountId)).now);
    const theirClock = Date.parse((await mock.control.accountClock(theirs.accountId)).now);
    // Read one after the other, both clocks also moved with real time in between.
    expect(Math.abs(myClock - theirClock - 86_400_000)).toBeLessThan(60_000);
    expect(Date.parse((await mock.control.clock()).now) - sandboxBefore).toBeLessThan(60_000);
    expect((await mock.control.payouts(theirs.accountId))[0]?.status).toBe("AWAITING_APPROVAL");
    expect(new Set(sent)).toEqual(new Set([`Basic ${btoa(`${mine.publicKey}:${mine.secretKey}`)}`]));
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-shared-sandbox.png"), fullPage: true });
    await page.close();
  });

  it("the mock bank's open finance page decides and sends the customer back to the store's returnUrl", async () => {
    await using mock = await createMockServer({ autoAdvance: false });
    const store = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Loja</title><h1>Obrigado</h1>");
    });
    store.listen(0, "127.0.0.1");
    await once(store, "listening");
    try {
      const storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}/pedido/42?lang=pt`;
      const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
      const payin = await paykit.payins.create({
        paymentMethod: "OPEN_FINANCE",
        amount: 4_990,
        referenceId: "open-finance-return-1",
        isPhysicalProduct: false,
        payerIp: "200.100.50.25",
        bankId: "001",
        customer: {
          name: "Maria da Silva",
          document: "12345678909",
          email: "maria@example.com",
          phone: "5511987654321",
        },
        items: [{ title: "Plano mensal", quantity: 1, unitPrice: 4_990 }],
      });
      const bankUrl = `${payin.openFinanceRedirectUrl}?returnUrl=${encodeURIComponent(storeUrl)}`;

      const page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(bankUrl);
      await page.click("button[value=approve]");
      await page.waitForSelector("#return");
      expect(await page.textContent("#status")).toBe("APPROVED");
      // The decided page follows its link back by itself (meta refresh, no script).
      await page.waitForURL((url) => url.pathname === "/pedido/42");
      const back = new URL(page.url());
      expect(Object.fromEntries(back.searchParams)).toEqual({
        lang: "pt",
        payinId: payin.id,
        status: "APPROVED",
      });
      expect(await page.textContent("h1")).toBe("Obrigado");
      expect((await paykit.payins.retrieve(payin.id)).status).toBe("APPROVED");
      await page.close();
    } finally {
      store.close();
    }
  });
});
