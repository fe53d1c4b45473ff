import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemo } from "../src/demo.js";
import { DEMO_CARDS } from "../src/sample-data.js";
import { launchChromium, OUTPUT_DIR, SKIP_BROWSER } from "./browser.js";

let browser: Browser;

async function openCheckout(url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  // Fail fast and name the step: a missing element is a broken page, not a slow one.
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  expect(errors).toEqual([]);
  return page;
}

const statusIs = (page: Page, status: string) =>
  page.waitForFunction(
    (expected) => document.querySelector("[data-testid=payin-status]")?.textContent === expected,
    status,
  );

describe.skipIf(SKIP_BROWSER)("the checkout page in headless Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("pays a PIX: QR code and copy-and-paste shown, simulate payment → APPROVED through the webhook", async () => {
    const merchantLog: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });
    const page = await openCheckout(demo.backend.url);

    await page.click("[data-testid=pay-button]");
    await statusIs(page, "PENDING");
    const brCode = await page.inputValue("[data-testid=pix-code]");
    expect(brCode).toMatch(/^000201/);
    const qr = await page.$eval("[data-testid=pix-qr]", (img) => ({
      src: (img as HTMLImageElement).src.slice(0, 26),
      loaded: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
    }));
    expect(qr).toEqual({ src: "data:image/svg+xml;base64,", loaded: true });

    await page.click("[data-testid=simulate-payment]");
    await statusIs(page, "APPROVED");
    // The page moved because the backend verified the mock's signed webhook, not because of the click.
    expect(
      merchantLog.some((line) => line.startsWith("✔ webhook verified") && line.includes("PIX → APPROVED")),
    ).toBe(true);
    await page.waitForSelector("[data-testid=event-log] li");
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-pix-approved.png"), fullPage: true });
    await page.close();
  });

  it("pays by card with a 3DS challenge through @paykit/browser's <script> build", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo.backend.url);
    await page.check('input[value="CREDIT_CARD"]');
    await page.selectOption("#card-preset", "threeDS");
    expect(await page.inputValue("#card-number")).toBe(DEMO_CARDS.threeDS);

    await page.click("[data-testid=pay-button]");
    await statusIs(page, "PENDING_3DS");
    const challenge = page.frameLocator("[data-testid=three-ds] iframe");
    await challenge.getByRole("button", { name: /approve|aprovar/i }).click();
    await statusIs(page, "APPROVED");
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-card-3ds-approved.png"), fullPage: true });
    await page.close();
  });
});
