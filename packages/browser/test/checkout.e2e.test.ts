// The checkout screens in real headless Chromium: the IIFE builds on merchant pages under a strict CSP, a merchant
// backend with createPaymentStatus (@paykit/node/checkout) and a webhook receiver, and the real mock over HTTP.
// Never downloads a browser. Screenshots go to test-results/checkout/ (and to docs/images/ with
// PAYKIT_UPDATE_SCREENSHOTS=1, which is how the guide's pictures are made).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { Server, ServerResponse } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PayinCreated } from "@paykit/contract";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { createPaymentStatus, type PaymentStatusEndpoint, toNodeListener } from "@paykit/node/checkout";
import jsQR from "jsqr";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import {
  attribute,
  axeViolations,
  close,
  listen,
  PATIENT,
  readBody,
  picture as savePicture,
} from "./checkout-page.js";
import { challengeData, THREE_DS_CARD } from "./fixtures.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"];
// Skipped only on a developer machine without Chromium; in CI a missing browser must fail loudly.
const skip = !existsSync(CHROMIUM) && !process.env.CI;
if (skip) console.warn(`checkout.e2e: SKIPPED, no Chromium at ${CHROMIUM}. Set CHROMIUM_PATH.`);

const results = fileURLToPath(new URL("../test-results/checkout/", import.meta.url));

/** The page's own script (no inline script under the CSP): records the screen's events for the test. */
const PAGE_SCRIPT = `(function () {
  // Listening before <paykit-payment> is parsed: a payin already final sends paykit-final at once.
  var events = (window.paykitEvents = []);
  document.addEventListener("paykit-final", function (e) { events.push("final:" + e.detail.status); });
  document.addEventListener("paykit-error", function (e) { events.push("error:" + (e.detail.code || e.detail.name)); });
  document.addEventListener("DOMContentLoaded", function () {
    var card = document.getElementById("card-payment");
    if (!card) return;
    fetch("/card-data").then(function (r) { return r.json(); }).then(function (data) {
      window.PaykitCheckout.mountPayment(card, {
        payin: JSON.parse(card.getAttribute("data-payin")),
        statusUrl: "/payment-status",
        threeDS: { data: data, handlePendingThreeDS: window.Paykit.handlePendingThreeDS },
        onFinal: function (s) { events.push("final:" + s.status); },
        onError: function (e) { events.push("error:" + (e.code || e.name)); }
      });
    });
  });
})();`;

/**
 * A framework's page (`?early=1`): it creates `<paykit-payment>` and sets its properties, `locale` among them, before
 * the checkout script that defines the element is loaded.
 */
const EARLY_SCRIPT = `(function () {
  var holder = document.getElementById("early-payment");
  var element = document.createElement("paykit-payment");
  window.paykitDefinedBefore = Boolean(customElements.get("paykit-payment"));
  element.payin = JSON.parse(holder.getAttribute("data-payin"));
  element.statusUrl = "/payment-status";
  element.locale = "en";
  holder.append(element);
  var script = document.createElement("script");
  script.src = "/paykit-checkout.global.js";
  document.head.append(script);
})();`;

/** The merchant's checkout page: no inline script or style, only what `default-src 'self'` allows. */
function checkoutHtml(payin: PayinCreated, locale: string, early: boolean): string {
  const json = attribute(JSON.stringify(payin));
  const screen = early
    ? `<div id="early-payment" data-payin="${json}"></div><script src="/early.js"></script>`
    : payin.paymentMethod === "CREDIT_CARD"
      ? `<div id="card-payment" data-payin="${json}"></div>`
      : `<paykit-payment payin="${json}" status-url="/payment-status" locale="${locale}" stylesheet-url="/checkout.css"></paykit-payment>`;
  return `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout</title>
<script src="/page.js"></script>
<script src="/paykit-browser.global.js"></script>
${early ? "" : `<script src="/paykit-checkout.global.js"></script>`}
</head><body><main><h1>Loja Exemplo</h1>${screen}</main></body></html>`;
}

describe.skipIf(skip)(
  "checkout screens in headless Chromium (IIFE builds, createPaymentStatus, mock)",
  { timeout: 60_000 },
  () => {
    let mock: MockServer;
    let paykit: Paykit;
    let paymentStatus: PaymentStatusEndpoint;
    let shop: Server;
    let shopUrl: string;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const payins = new Map<string, PayinCreated>();
    const streams = new Set<ServerResponse>();
    const requests = { stream: 0, json: 0 };
    let consoleErrors: string[] = [];

    beforeAll(async () => {
      if (!existsSync(CHROMIUM))
        throw new Error(`No Chromium at ${CHROMIUM}: in CI the real-browser tests must run.`);
      mock = await createMockServer({ autoAdvance: false });
      paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
      paymentStatus = createPaymentStatus({ paykit, authorize: (_request, id) => payins.has(id) });
      const statusListener = toNodeListener(paymentStatus.handler);
      const build = inject("buildDir");
      const files: Record<string, [string, Buffer | string]> = {
        "/paykit-checkout.global.js": [
          "text/javascript",
          readFileSync(join(build, "paykit-checkout.global.js")),
        ],
        "/paykit-browser.global.js": [
          "text/javascript",
          readFileSync(join(build, "paykit-browser.global.js")),
        ],
        "/page.js": ["text/javascript", PAGE_SCRIPT],
        "/early.js": ["text/javascript", EARLY_SCRIPT],
        "/checkout.css": ["text/css", readFileSync(join(build, "checkout.css"))],
        "/card-data": ["application/json", JSON.stringify(challengeData)],
      };
      const mockOrigin = new URL(mock.url).origin;
      const csp = `default-src 'self'; script-src 'self' ${mockOrigin}; frame-src ${mockOrigin}`;
      [shop, shopUrl] = await listen((req, res) => {
        const url = new URL(req.url ?? "/", "http://shop");
        const page = /^\/checkout\/(pi_\w+)$/.exec(url.pathname);
        if (page && payins.has(page[1]!)) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp });
          res.end(
            checkoutHtml(
              payins.get(page[1]!)!,
              url.searchParams.get("locale") ?? "pt-BR",
              url.searchParams.has("early"),
            ),
          );
        } else if (url.pathname === "/payment-status") {
          if ((req.headers.accept ?? "").includes("text/event-stream")) {
            requests.stream++;
            streams.add(res);
            res.once("close", () => streams.delete(res));
          } else {
            requests.json++;
          }
          statusListener(req, res);
        } else if (url.pathname === "/webhooks" && req.method === "POST") {
          // The merchant's webhook receiver: verify, then hand the event to every page watching the payin.
          void readBody(req)
            .then((raw) => paykit.webhooks.parse(raw, req.headers))
            .then((event) => paymentStatus.notify(event))
            .then(
              () => res.writeHead(204).end(),
              () => res.writeHead(400).end(),
            );
        } else if (url.pathname === "/favicon.ico") {
          res.writeHead(204).end();
        } else if (files[url.pathname]) {
          const [type, content] = files[url.pathname]!;
          res.writeHead(200, { "content-type": `${type}; charset=utf-8` });
          res.end(content);
        } else {
          res.writeHead(404).end();
        }
      });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      mkdirSync(results, { recursive: true });
    }, 120_000);

    afterEach(async () => {
      await context?.close();
      context = undefined;
    });

    afterAll(async () => {
      await browser?.close();
      await paymentStatus?.close();
      await Promise.all([shop && close(shop), mock?.close()]);
    });

    async function createPayin(method: "PIX" | "BOLETO" | "OPEN_FINANCE"): Promise<PayinCreated> {
      const payin = await paykit.payins.create({ ...samplePayin(method), webhookUrl: `${shopUrl}/webhooks` });
      payins.set(payin.id, payin);
      return payin;
    }

    async function createCardPayin(): Promise<PayinCreated> {
      const payin = await paykit.payins.create({
        ...samplePayin("CREDIT_CARD"),
        amount: challengeData.amount,
        customer: { ...samplePayin("CREDIT_CARD").customer, ...challengeData.customer },
        card: { ...THREE_DS_CARD, installments: challengeData.installments },
        webhookUrl: `${shopUrl}/webhooks`,
      });
      expect(payin.status).toBe("PENDING_3DS");
      payins.set(payin.id, payin);
      return payin;
    }

    /** Opens the checkout page of `payin` in a fresh context, recording console errors of the shop's pages. */
    async function open(
      payin: PayinCreated,
      options: { locale?: string; clockAt?: number; initScript?: () => void; early?: boolean } = {},
    ): Promise<Page> {
      context = await browser.newContext({ viewport: { width: 480, height: 900 } });
      if (options.initScript) await context.addInitScript(options.initScript);
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: shopUrl });
      if (options.clockAt !== undefined) await context.clock.install({ time: options.clockAt });
      const page = await context.newPage();
      consoleErrors = [];
      page.on("console", (message) => {
        if (message.type() === "error" && message.location().url.startsWith(shopUrl))
          consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(error.message));
      await page.goto(
        `${shopUrl}/checkout/${payin.id}?locale=${options.locale ?? "pt-BR"}${options.early ? "&early=1" : ""}`,
      );
      return page;
    }

    /** Waits until the page's event stream is open: its headers (and first event) are sent. */
    const streamUnderWay = () =>
      expect.poll(() => [...streams].filter((response) => response.headersSent).length, PATIENT).toBe(1);
    const screen = (page: Page) => page.locator("paykit-payment, #card-payment > div").first();
    const heading = (page: Page) => screen(page).locator("h2");
    const events = (page: Page) =>
      page.evaluate(() => (window as unknown as { paykitEvents: string[] }).paykitEvents);

    /** Saves the screen's picture (and, with PAYKIT_UPDATE_SCREENSHOTS=1, the guide's copy). */
    const picture = (page: Page, name: string) => savePicture(screen(page).locator("[part=root]"), name);

    /** Decodes a PNG with Chromium's own image decoder (a page without CSP), then reads the QR with jsQR. */
    async function decodeQr(png: Buffer): Promise<string | undefined> {
      const decoder = await browser.newPage();
      try {
        const image = await decoder.evaluate(async (base64) => {
          const blob = await (await fetch(`data:image/png;base64,${base64}`)).blob();
          const bitmap = await createImageBitmap(blob);
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const context2d = canvas.getContext("2d")!;
          context2d.drawImage(bitmap, 0, 0);
          const { data, width, height } = context2d.getImageData(0, 0, bitmap.width, bitmap.height);
          return { data: Array.from(data), width, height };
        }, png.toString("base64"));
        return jsQR(Uint8ClampedArray.from(image.data), image.width, image.height)?.data;
      } finally {
        await decoder.close();
      }
    }

    it("PIX (pt-BR): the QR decodes to pix.qrcode, copy works, and the paid payin shows approved within 2 s", async () => {
      const payin = await createPayin("PIX");
      const code = payin.paymentMethod === "PIX" ? payin.pix.qrcode : "";
      const page = await open(payin);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      await expect
        .poll(() => screen(page).locator("[role=timer]").textContent(), PATIENT)
        .toMatch(/^O código expira em 59:\d\d$/);
      expect(await screen(page).locator("svg[role=img]").getAttribute("aria-label")).toBe(code);
      expect(await decodeQr(await screen(page).locator("svg").screenshot())).toBe(code);

      await screen(page).getByRole("button", { name: "Copiar código" }).click();
      await expect
        .poll(() => screen(page).locator("[part=copy-note]").textContent(), PATIENT)
        .toBe("Copiado!");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "pix");

      await streamUnderWay();
      await mock.control.payPayin(payin.id);
      const paidAt = Date.now();
      await expect
        .poll(() => heading(page).textContent(), { timeout: 2_000, interval: 50 })
        .toBe("Pagamento aprovado");
      console.log(`PIX approved on screen ${Date.now() - paidAt} ms after payPayin resolved`);
      expect(await events(page)).toEqual(["final:APPROVED"]);
      // The focus moved to the final message.
      expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName)).toBe(
        "H2",
      );
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "pix-approved");
      expect(consoleErrors).toEqual([]);
    });

    it("PIX (en) on the mock's clock: the countdown reaches the expired state, then the server's EXPIRED arrives", async () => {
      const payin = await createPayin("PIX");
      const mockNow = Date.parse((await mock.control.clock()).now);
      const page = await open(payin, { locale: "en", clockAt: mockNow });
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pay with PIX");
      await expect
        .poll(() => screen(page).locator("[role=timer]").textContent(), PATIENT)
        .toMatch(/^The code expires in 59:\d\d$/);
      await streamUnderWay();

      // The shopper's clock and the mock's move one hour on: the code is no longer payable.
      await context!.clock.fastForward(60 * 60_000);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Time is up");
      expect(await screen(page).locator("svg").count()).toBe(0);
      expect(await events(page)).toEqual([]); // only the server says EXPIRED
      await mock.control.setClock({ advanceMs: 60 * 60_000 });
      await expect.poll(() => events(page), PATIENT).toEqual(["final:EXPIRED"]);
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "pix-expired-en");
      expect(consoleErrors).toEqual([]);
    });

    it("PIX: the event stream cut mid-way falls back to polling and still reaches the final state", async () => {
      const payin = await createPayin("PIX");
      const page = await open(payin);
      // Cut once the stream is under way, not while it is being opened.
      await streamUnderWay();
      const { stream: streamsBefore, json: polledBefore } = requests;
      for (const response of streams) response.socket?.destroy();
      await expect.poll(() => requests.json, PATIENT).toBeGreaterThan(polledBefore);
      await mock.control.payPayin(payin.id);
      await expect.poll(() => heading(page).textContent(), { timeout: 20_000 }).toBe("Pagamento aprovado");
      expect(requests.stream).toBe(streamsBefore); // it polled; it never opened a second stream
      expect(await events(page)).toEqual(["final:APPROVED"]);
      // Chromium reports the cut itself; nothing else (no CSP violation, no page error).
      expect(consoleErrors.filter((error) => !error.includes("ERR_INCOMPLETE_CHUNKED_ENCODING"))).toEqual([]);
    });

    it("PIX: properties a framework set on <paykit-payment> before the script defined it reach the screen", async () => {
      const payin = await createPayin("PIX");
      const page = await open(payin, { early: true });
      // `locale` was set only as a property, before the definition: the English screen proves it arrived.
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pay with PIX");
      expect(
        await page.evaluate(
          () => (window as unknown as { paykitDefinedBefore: boolean }).paykitDefinedBefore,
        ),
      ).toBe(false);
      expect(await screen(page).locator("svg[role=img]").getAttribute("aria-label")).toBe(
        payin.paymentMethod === "PIX" ? payin.pix.qrcode : "",
      );
      await streamUnderWay();
      await mock.control.payPayin(payin.id);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Payment approved");
      expect(await events(page)).toEqual(["final:APPROVED"]);
      expect(consoleErrors).toEqual([]);
    });

    it("removing the screen ends its stream on the server, and no request follows", async () => {
      const payin = await createPayin("PIX");
      const page = await open(payin);
      await streamUnderWay();
      const before = { ...requests };
      await page.evaluate(() => document.querySelector("paykit-payment")!.remove());
      await expect.poll(() => streams.size, PATIENT).toBe(0);
      await page.waitForTimeout(3_000); // longer than the first polling interval
      expect(requests).toEqual(before);
      expect(consoleErrors).toEqual([]);
    });

    it("a browser without constructable stylesheets is styled by the checkout.css link, still under the CSP", async () => {
      const payin = await createPayin("PIX");
      const page = await open(payin, {
        // As in browsers before constructable stylesheets (Safari 16.3, Firefox 100).
        initScript: () => {
          delete (ShadowRoot.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
          delete (Document.prototype as { adoptedStyleSheets?: unknown }).adoptedStyleSheets;
        },
      });
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      expect(await screen(page).locator("link[rel=stylesheet]").getAttribute("href")).toBe("/checkout.css");
      const button = screen(page).getByRole("button", { name: "Copiar código" });
      await expect
        .poll(() => button.evaluate((element) => getComputedStyle(element).backgroundColor), PATIENT)
        .toBe("rgb(11, 107, 79)");
      expect(await axeViolations(page)).toEqual([]);
      expect(consoleErrors).toEqual([]);
    });

    it("BOLETO: the digitable line, due date, PDF link and waiting state, then approved", async () => {
      const payin = await createPayin("BOLETO");
      const boleto = payin.paymentMethod === "BOLETO" ? payin.boleto : { barcode: "", url: "" };
      const page = await open(payin);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague o boleto");
      const line = await screen(page).locator("textarea").inputValue();
      expect(line.replace(/\D/g, "")).toBe(boleto.barcode);
      await expect(screen(page).locator("[part=due-date]").textContent()).resolves.toMatch(
        /^Vencimento: \d+ de \w+ de \d{4}$/,
      );
      expect(
        await screen(page).getByRole("link", { name: "Abrir o boleto (PDF)" }).getAttribute("href"),
      ).toBe(boleto.url);
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "boleto");

      // Keyboard focus is visible: Tab reaches the line, then its copy button, each with a 3 px outline.
      const copy = screen(page).getByRole("button", { name: "Copiar linha digitável" });
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      expect(await copy.evaluate((element) => element.matches(":focus-visible"))).toBe(true);
      expect(await copy.evaluate((element) => getComputedStyle(element).outline)).toMatch(/solid 3px$/);
      // Reduced motion: the waiting spinner stops.
      const spinner = () =>
        screen(page)
          .locator("[part=waiting]")
          .evaluate((element) => getComputedStyle(element, "::before").animationName);
      expect(await spinner()).toBe("paykit-spin");
      await page.emulateMedia({ reducedMotion: "reduce" });
      expect(await spinner()).toBe("none");
      await mock.control.payPayin(payin.id);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      expect(consoleErrors).toEqual([]);
    });

    it("OPEN_FINANCE: to the bank, back without deciding (waiting state), to the bank again, approve, back approved", async () => {
      const created = await createPayin("OPEN_FINANCE");
      const returnUrl = `${shopUrl}/checkout/${created.id}`;
      const payin = {
        ...created,
        openFinanceRedirectUrl: `${(created as { openFinanceRedirectUrl: string }).openFinanceRedirectUrl}?returnUrl=${encodeURIComponent(returnUrl)}`,
      } as PayinCreated;
      payins.set(payin.id, payin);
      const page = await open(payin);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague pelo seu banco");
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "open-finance");

      await screen(page).getByRole("link", { name: "Ir para o banco" }).click();
      await page.waitForURL((url) => url.origin === new URL(mock.url).origin);
      await page.goBack();
      await expect
        .poll(() => screen(page).locator("[part=waiting]").textContent())
        .toBe("Confirmando o pagamento com o seu banco…");
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "open-finance-returned");

      await screen(page).getByRole("link", { name: "Voltar ao banco" }).click();
      await page.getByRole("button", { name: /Approve/ }).click();
      // The bank's page sends the shopper back to the store after a few seconds.
      await page.waitForURL((url) => url.href.startsWith(returnUrl), { timeout: 15_000 });
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      expect(await events(page)).toEqual(["final:APPROVED"]);
      expect(consoleErrors).toEqual([]);
    });

    it("OPEN_FINANCE denied at the bank: the refused state, announced and focused", async () => {
      const payin = await createPayin("OPEN_FINANCE");
      const page = await open(payin);
      await streamUnderWay();
      await mock.control.authorizePayin(payin.id, false);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento recusado");
      expect(await screen(page).locator("[role=status]").textContent()).toBe(
        "Pagamento recusado. O pagamento não foi concluído. Tente outra forma de pagamento.",
      );
      expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.tagName)).toBe(
        "H2",
      );
      expect(await events(page)).toEqual(["final:REFUSED"]);
      expect(await axeViolations(page)).toEqual([]);
      await picture(page, "refused");
      expect(consoleErrors).toEqual([]);
    });

    it("CREDIT_CARD in PENDING_3DS: the bank's challenge inside the screen, then the final status", async () => {
      const payin = await createCardPayin();
      const page = await open(payin);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Confirme a compra");
      const approve = page.frameLocator("iframe").locator("#approve");
      await expect.poll(() => approve.isEnabled(), PATIENT).toBe(true);
      await picture(page, "card-3ds");
      await approve.click();
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      expect(await events(page)).toEqual(["final:APPROVED"]);
      expect(await axeViolations(page)).toEqual([]);
      expect(consoleErrors).toEqual([]);
    });
  },
);
