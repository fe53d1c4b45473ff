// The demo's checkout page renews an expired PIX (mountPayment's onRenew, page side only): the mock expires
// the payin, the screen offers "Gerar novo Pix", the page asks the backend for the cart's new PIX, and paying
// that one ends the screen approved. Real headless Chromium, the real mock and the demo backend.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemo } from "../src/demo.js";
import { launchChromium, SKIP_BROWSER } from "./browser.js";

const PATIENT = { timeout: 20_000 };
let browser: Browser;

describe.skipIf(SKIP_BROWSER)("the checkout page renews an expired PIX", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("'Gerar novo Pix' shows the cart's new PIX, and the simulated payment of that one is approved", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const context = await browser.newContext({ viewport: { width: 390, height: 1400 } });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
      await page.goto(demo.backend.url);
      await page.waitForSelector("body[data-ready=true]");
      await page.check("input[name=method][value=PIX]");
      await page.click("[data-testid=pay-button]");
      const screen = page.locator("[data-paykit-payment]");
      await expect.poll(() => screen.locator("h2").textContent(), PATIENT).toBe("Pague com PIX");
      const payinOnScreen = () => page.getAttribute("[data-testid=simulate-payment]", "data-payin");
      const expired = (await payinOnScreen())!;
      await expect.poll(() => demo.backend.paymentStatus.stats().openStreams, PATIENT).toBe(1);

      await demo.mockControl.expirePayin(expired);
      const renew = screen.getByRole("button", { name: "Gerar novo Pix" });
      await renew.click(PATIENT);
      await expect.poll(() => screen.locator("h2").textContent(), PATIENT).toBe("Pague com PIX");
      const renewed = (await payinOnScreen())!;
      expect(renewed).not.toBe(expired);

      await page.click("[data-testid=simulate-payment]");
      await expect.poll(() => screen.locator("h2").textContent(), PATIENT).toBe("Pagamento aprovado");
      await page.waitForSelector("body[data-final=APPROVED]");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
