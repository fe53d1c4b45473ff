// The demo's checkout page in real headless Chromium, against the real mock and the demo backend: each
// payment method on @paykit/browser's payment screen until its final state, the card's 3DS challenge,
// and the form's errors in Portuguese, all under the page's strict Content-Security-Policy.
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Demo } from "../src/demo.js";
import { startDemo } from "../src/demo.js";
import { DEMO_CARDS } from "../src/sample-data.js";
import { launchChromium, OUTPUT_DIR, SKIP_BROWSER } from "./browser.js";

/** Waits on a condition: generous, for a loaded 2-core machine; every wait ends as soon as it holds. */
const PATIENT = { timeout: 20_000 };

let browser: Browser;
let context: BrowserContext | undefined;
/** What the page must never produce: console errors, uncaught errors, what its CSP blocked. */
let problems: string[] = [];

async function openCheckout(demo: Demo, path = "/"): Promise<Page> {
  context ??= await browser.newContext({ viewport: { width: 1100, height: 1400 } });
  // Runs outside the page's CSP (the browser injects it), so it can report what the CSP refuses.
  await context.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP refused ${event.violatedDirective}: ${event.blockedURI}`),
    ),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(PATIENT.timeout);
  problems = [];
  // The shop's own pages only (the mock bank's page is not the shop's to fix).
  page.on("console", (message) => {
    const { url } = message.location();
    if (message.type() === "error" && (url === "" || url.startsWith(demo.backend.url)))
      problems.push(`${message.text()} (${url})`);
  });
  page.on("pageerror", (error) => problems.push(error.message));
  const response = await page.goto(`${demo.backend.url}${path}`);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/^default-src 'self'; script-src 'self' http:\/\/127\.0\.0\.1:\d+; frame-src /);
  expect(csp).not.toContain("unsafe");
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

const screen = (page: Page) => page.locator("[data-paykit-payment]");
const heading = (page: Page) => screen(page).locator("h2");
/** The payin on screen: the dev button carries its id, the backend's orders have its 201 answer. */
const shownPayin = async (page: Page, demo: Demo) => {
  const id = await page.getAttribute("[data-testid=simulate-payment]", "data-payin");
  const order = demo.backend.orders.get(id ?? "");
  if (!order) throw new Error(`no order for the payin on screen (${id})`);
  return order.created;
};

async function pay(page: Page, method: string): Promise<void> {
  await page.check(`input[name=method][value=${method}]`);
  await page.click("[data-testid=pay-button]");
}

/** Everything a final state owes: the page's flag, no stream left open, no error on the page. */
async function expectFinal(page: Page, demo: Demo, status: string): Promise<void> {
  await page.waitForSelector(`body[data-final=${status}]`);
  await expect.poll(() => demo.backend.paymentStatus.stats().openStreams, PATIENT).toBe(0);
  expect(problems).toEqual([]);
}

describe.skipIf(SKIP_BROWSER)("the checkout page in headless Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("PIX: the screen draws the QR and the copy-and-paste code, then approved by the verified webhook", async () => {
    const merchantLog: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });
    const page = await openCheckout(demo);
    await pay(page, "PIX");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
    const payin = await shownPayin(page, demo);
    const code = payin.paymentMethod === "PIX" ? payin.pix.qrcode : "";
    expect(code).toMatch(/^000201/);
    expect(await screen(page).locator("textarea").inputValue()).toBe(code);
    // Drawn in the browser as SVG; its text alternative is the code itself.
    expect(await screen(page).locator("svg[role=img]").getAttribute("aria-label")).toBe(code);
    await expect.poll(() => demo.backend.paymentStatus.stats().openStreams, PATIENT).toBe(1);

    await page.click("[data-testid=simulate-payment]");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
    // The page moved because the backend verified the mock's signed webhook and told the status endpoint.
    expect(merchantLog).toContainEqual(expect.stringMatching(/^✔ webhook verified: payin .* PIX → APPROVED/));
    expect(demo.backend.orders.get(payin.id)?.status).toBe("APPROVED");
    expect(await page.isHidden("[data-testid=simulate-payment]")).toBe(true);
    await expectFinal(page, demo, "APPROVED");
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-pix-approved.png"), fullPage: true });
  });

  it("BOLETO: the digitable line and the PDF link, then approved when it is paid", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo);
    await pay(page, "BOLETO");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague o boleto");
    const payin = await shownPayin(page, demo);
    const boleto = payin.paymentMethod === "BOLETO" ? payin.boleto : { barcode: "?", url: "?" };
    expect((await screen(page).locator("textarea").inputValue()).replace(/\D/g, "")).toBe(boleto.barcode);
    expect(await screen(page).getByRole("link", { name: "Abrir o boleto (PDF)" }).getAttribute("href")).toBe(
      boleto.url,
    );
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-boleto.png"), fullPage: true });
    await page.click("[data-testid=simulate-payment]");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
    await expectFinal(page, demo, "APPROVED");
  });

  it("OPEN_FINANCE: to the mock bank, approve, and back to the shop's page, which shows it approved", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo);
    await pay(page, "OPEN_FINANCE");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague pelo seu banco");
    const { id } = await shownPayin(page, demo);

    await screen(page).getByRole("link", { name: "Ir para o banco" }).click();
    await page.waitForURL((url) => url.origin === new URL(demo.mockUrl).origin);
    await page.getByRole("button", { name: /approve/i }).click();
    // The bank's page sends the shopper back with ?payinId=…; the page asks its backend for that payment.
    await page.waitForURL((url) => url.origin === demo.backend.url && url.searchParams.get("payinId") === id);
    await page.waitForSelector("body[data-ready=true]");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
    expect(demo.backend.orders.get(id)?.status).toBe("APPROVED");
    await expectFinal(page, demo, "APPROVED");
  });

  it("CREDIT_CARD: the bank's 3DS challenge inside the screen, then approved", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo);
    await page.check("input[name=method][value=CREDIT_CARD]");
    await page.selectOption("#card-preset", "threeDS");
    expect(await page.inputValue("#card-number")).toBe(DEMO_CARDS.threeDS);
    await page.click("[data-testid=pay-button]");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Confirme a compra");
    const approve = page.frameLocator("[data-paykit-payment] iframe").locator("#approve");
    await expect.poll(() => approve.isEnabled(), PATIENT).toBe(true);
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-card-3ds.png"), fullPage: true });
    await approve.click();
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
    await expectFinal(page, demo, "APPROVED");
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-card-3ds-approved.png"), fullPage: true });
  });

  it("CREDIT_CARD refused at once: the screen shows the final refusal from the 201 alone", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo);
    await page.check("input[name=method][value=CREDIT_CARD]");
    await page.selectOption("#card-preset", "refused");
    await page.click("[data-testid=pay-button]");
    await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento recusado");
    await expectFinal(page, demo, "REFUSED");
  });

  it("the form shows the service's refusals in Portuguese, per field (formatPaymentError)", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const page = await openCheckout(demo);
    await page.check("input[name=method][value=CREDIT_CARD]");

    // A typo in the number: refused by the client's validation before anything is sent.
    await page.fill("#card-number", "4111111111111112");
    await page.click("[data-testid=pay-button]");
    await expect
      .poll(() => page.textContent("#card-number-error"), PATIENT)
      .toBe("Número do cartão inválido");
    expect(await page.getAttribute("#card-number", "aria-invalid")).toBe("true");
    expect(await page.textContent("[data-testid=pay-error]")).toBe("Número do cartão inválido");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("card-number");

    // A wrong CVV: the acquirer's refusal, in the shopper's words, on the CVV field.
    await page.selectOption("#card-preset", "wrongCvv");
    await page.click("[data-testid=pay-button]");
    await expect
      .poll(() => page.textContent("[data-testid=pay-error]"), PATIENT)
      .toBe("Cartão recusado: código de segurança (CVV) incorreto. Confira e tente de novo.");
    expect(await page.textContent("#card-cvv-error")).toBe("Código de segurança (CVV) inválido");
    expect(await page.getAttribute("#card-number", "aria-invalid")).toBeNull();
    expect(await screen(page).count()).toBe(0);
    // The backend's 400 answers are the only console errors (Chromium logs every failed request).
    expect(problems.filter((line) => !/status of 400/.test(line))).toEqual([]);
    await page.screenshot({ path: join(OUTPUT_DIR, "checkout-form-errors.png"), fullPage: true });
  });
});
