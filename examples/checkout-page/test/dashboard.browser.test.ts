import { join } from "node:path";
import { createMockServer } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The dashboard page is rendered by the mock; imported here only for a mock that does not route it yet.
import { renderDashboardPage } from "../../../packages/mock-server/src/pages/dashboard.js";
import { startDemo } from "../src/demo.js";
import { launchChromium, OUTPUT_DIR, SKIP_BROWSER } from "./browser.js";

let browser: Browser;

async function openDashboard(mockUrl: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  // Fail fast and name the step: a missing element is a broken page, not a slow one.
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const url = `${mockUrl}/_mock/dashboard`;
  if ((await fetch(url)).status === 404) {
    await page.route(url, (route) =>
      route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: renderDashboardPage() }),
    );
  }
  await page.goto(url);
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
    // The dashboard lists payouts through the control API; say so plainly when the mock lacks the route.
    const listed = await fetch(`${mock.url}/_mock/payouts?accountId=${merchant.accountId}`);
    expect(listed.status, "the dashboard needs GET /_mock/payouts?accountId= → { data: payout[] }").toBe(200);

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
    await page.waitForFunction(
      () =>
        document.querySelector("[data-delivery] [data-testid=attempt-count]")?.textContent === "2 attempt(s)",
    );
    expect(merchantLog.filter((line) => line.includes("already handled"))).toHaveLength(1);
    expect(demo.backend.orders.get(created.payin.id)?.status).toBe("APPROVED");
    await page.screenshot({ path: join(OUTPUT_DIR, "dashboard-webhook-redelivered.png"), fullPage: true });
    await page.close();
  });
});
