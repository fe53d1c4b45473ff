// A PIX that renews, in real headless Chromium: the checkout IIFE on a merchant's page under a strict CSP, the
// merchant's backend (createPaymentStatus of @paykit/node/checkout, a webhook receiver, and the endpoint that
// creates the order's new payin), and the real mock over HTTP. The mock expires the payin, the shopper presses
// "Gerar novo Pix", pays the new payin, and the page hears the new one's APPROVED; a failed renewal offers to try
// again; axe-core finds nothing serious in the new states; and the layout puts the code first on a phone and the
// QR code first on a wide screen. Pictures: test-results/checkout/ (docs/images/ with PAYKIT_UPDATE_SCREENSHOTS=1).
import { readFileSync } from "node:fs";
import type { Server, ServerResponse } from "node:http";
import { join } from "node:path";
import type { PayinCreated } from "@paykit/contract";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { createPaymentStatus, type PaymentStatusEndpoint, toNodeListener } from "@paykit/node/checkout";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium, SKIP_BROWSER as skip } from "../../../tests/support/chromium.js";
import { attribute, axeViolations, close, listen, PATIENT, picture, readBody } from "./checkout-page.js";

/**
 * The page's own script (no inline script under the CSP). `mount`: mountPayment with onRenew; `element`:
 * <paykit-payment> with renewPayin. Both ask the shop's POST /renew for the order's new payin and record what the
 * screen reports in window.paykitEvents.
 */
const RENEW_SCRIPT = `(function () {
  var events = (window.paykitEvents = []);
  var holder = document.getElementById("payment");
  var payin = JSON.parse(holder.getAttribute("data-payin"));
  function renew(expired) {
    events.push("renew:" + expired.id);
    return fetch("/renew?id=" + encodeURIComponent(expired.id), { method: "POST" }).then(function (answer) {
      if (!answer.ok) throw new Error("the shop answered " + answer.status);
      return answer.json();
    });
  }
  function final(status) { events.push("final:" + status.status + ":" + status.id); }
  function error(failure) { events.push("error:" + (failure.code || failure.name)); }
  if (holder.getAttribute("data-mode") === "element") {
    var element = document.createElement("paykit-payment");
    element.payin = payin;
    element.statusUrl = "/payment-status";
    element.renewPayin = renew;
    element.addEventListener("paykit-final", function (event) { final(event.detail); });
    element.addEventListener("paykit-error", function (event) { error(event.detail); });
    holder.append(element);
  } else {
    window.PaykitCheckout.mountPayment(holder, {
      payin: payin, statusUrl: "/payment-status", onRenew: renew, onFinal: final, onError: error
    });
  }
})();`;

type Mode = "mount" | "element";

/** The merchant's checkout page: no inline script or style, only what `default-src 'self'` allows. */
function checkoutHtml(payin: PayinCreated, mode: Mode): string {
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout</title>
<script src="/paykit-checkout.global.js"></script>
<script src="/renew.js" defer></script>
</head><body><main><h1>Loja Exemplo</h1>
<div id="payment" data-mode="${mode}" data-payin="${attribute(JSON.stringify(payin))}"></div>
</main></body></html>`;
}

describe.skipIf(skip)(
  "a PIX that renews, in headless Chromium (IIFE, createPaymentStatus, mock)",
  { timeout: 90_000 },
  () => {
    let mock: MockServer;
    let paykit: Paykit;
    let paymentStatus: PaymentStatusEndpoint;
    let shop: Server;
    let shopUrl: string;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const payins = new Map<string, PayinCreated>();
    /** The open event streams of the pages, by the payin they follow. */
    const streams = new Map<ServerResponse, string>();
    /** What POST /renew does next: fail (503), or wait for a promise, before creating the new payin. */
    const renewPlans: Array<"fail" | Promise<void>> = [];
    let consoleErrors: string[] = [];

    async function createPayin(): Promise<PayinCreated> {
      const payin = await paykit.payins.create({ ...samplePayin("PIX"), webhookUrl: `${shopUrl}/webhooks` });
      payins.set(payin.id, payin);
      return payin;
    }

    beforeAll(async () => {
      mock = await createMockServer({ autoAdvance: false });
      paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
      paymentStatus = createPaymentStatus({ paykit, authorize: (_request, id) => payins.has(id) });
      const statusListener = toNodeListener(paymentStatus.handler);
      const files: Record<string, [string, Buffer | string]> = {
        "/paykit-checkout.global.js": [
          "text/javascript",
          readFileSync(join(inject("buildDir"), "paykit-checkout.global.js")),
        ],
        "/renew.js": ["text/javascript", RENEW_SCRIPT],
      };
      const csp = "default-src 'self'; object-src 'none'; base-uri 'none'";
      [shop, shopUrl] = await listen((req, res) => {
        const url = new URL(req.url ?? "/", "http://shop");
        const page = /^\/checkout\/(pi_\w+)$/.exec(url.pathname);
        if (page && payins.has(page[1]!)) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp });
          res.end(checkoutHtml(payins.get(page[1]!)!, url.searchParams.get("mode") as Mode));
        } else if (url.pathname === "/payment-status") {
          if ((req.headers.accept ?? "").includes("text/event-stream")) {
            streams.set(res, url.searchParams.get("id")!);
            res.once("close", () => streams.delete(res));
          }
          statusListener(req, res);
        } else if (url.pathname === "/renew" && req.method === "POST") {
          // The merchant's backend: a new payin for the order of the expired one (a real shop checks the session).
          const plan = renewPlans.shift();
          if (!payins.has(url.searchParams.get("id")!) || plan === "fail") {
            res.writeHead(503).end();
            return;
          }
          void Promise.resolve(plan)
            .then(createPayin)
            .then((payin) => {
              res.writeHead(201, { "content-type": "application/json" });
              res.end(JSON.stringify(payin));
            });
        } else if (url.pathname === "/webhooks" && req.method === "POST") {
          void readBody(req)
            .then((raw) => paykit.webhooks.parse(raw, req.headers))
            .then((event) => paymentStatus.notify(event))
            .then(
              () => res.writeHead(204).end(),
              () => res.writeHead(400).end(),
            );
        } else if (files[url.pathname]) {
          const [type, content] = files[url.pathname]!;
          res.writeHead(200, { "content-type": `${type}; charset=utf-8` });
          res.end(content);
        } else {
          res.writeHead(url.pathname === "/favicon.ico" ? 204 : 404).end();
        }
      });
      browser = await launchChromium();
    }, 120_000);

    afterEach(async () => {
      renewPlans.length = 0;
      await context?.close();
      context = undefined;
    });

    afterAll(async () => {
      await browser?.close();
      await paymentStatus?.close();
      await Promise.all([shop && close(shop), mock?.close()]);
    });

    /** Opens the checkout page of `payin`, `width` px wide, recording console errors of the shop's pages. */
    async function open(payin: PayinCreated, mode: Mode, width = 480): Promise<Page> {
      context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      consoleErrors = [];
      page.on("console", (message) => {
        if (message.type() === "error" && message.location().url.startsWith(shopUrl))
          consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(error.message));
      await page.goto(`${shopUrl}/checkout/${payin.id}?mode=${mode}`);
      return page;
    }

    const screen = (page: Page) => page.locator("#payment paykit-payment, #payment > div").first();
    const heading = (page: Page) => screen(page).locator("h2");
    const message = (page: Page) => screen(page).locator("[part=message]");
    const renewButton = (page: Page) => screen(page).getByRole("button", { name: "Gerar novo Pix" });
    const events = (page: Page) =>
      page.evaluate(() => (window as unknown as { paykitEvents: string[] }).paykitEvents);
    /** The part of the element that has the focus, inside the screen's shadow root. */
    const focused = (page: Page) =>
      page.evaluate(() => {
        const host =
          document.querySelector("#payment paykit-payment") ?? document.querySelector("#payment > div");
        return host?.shadowRoot?.activeElement?.getAttribute("part") ?? null;
      });
    /** The payins whose event streams are open, with headers sent. */
    const followed = () => [...streams].filter(([response]) => response.headersSent).map(([, id]) => id);

    it("mountPayment: the mock expires the PIX, 'Gerar novo Pix' shows a new one, and paying it is what onFinal reports", async () => {
      const expired = await createPayin();
      const page = await open(expired, "mount");
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      await expect.poll(followed, PATIENT).toEqual([expired.id]);

      await mock.control.expirePayin(expired.id);
      await expect.poll(() => renewButton(page).isVisible(), PATIENT).toBe(true);
      expect(await heading(page).textContent()).toBe("Prazo encerrado");
      expect(await focused(page)).toBe("button renew-button");
      expect(await screen(page).locator("svg").count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await picture(screen(page).locator("[part=root]"), "pix-renew");

      // The backend takes its time: the screen is busy meanwhile, and says so.
      let answer!: () => void;
      renewPlans.push(new Promise<void>((resolve) => (answer = resolve)));
      await renewButton(page).click();
      await expect.poll(() => message(page).textContent(), PATIENT).toBe("Gerando um novo pagamento…");
      expect(await focused(page)).toBe("title");
      expect(await axeViolations(page)).toEqual([]);
      answer();

      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      const renewed = [...payins.values()].at(-1)!;
      expect(renewed.id).not.toBe(expired.id);
      const code = renewed.paymentMethod === "PIX" ? renewed.pix.qrcode : "";
      expect(await screen(page).locator("textarea").inputValue()).toBe(code);
      expect(await screen(page).locator("svg[role=img]").getAttribute("aria-label")).toBe(code);
      await expect
        .poll(() => screen(page).locator("[role=timer]").textContent(), PATIENT)
        .toMatch(/^O código expira em 59:\d\d$/);
      expect(await focused(page)).toBe("title");
      // The page follows the new payin, and only it.
      await expect.poll(followed, PATIENT).toEqual([renewed.id]);
      expect(await axeViolations(page)).toEqual([]);

      await mock.control.payPayin(renewed.id);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      expect(await events(page)).toEqual([`renew:${expired.id}`, `final:APPROVED:${renewed.id}`]);
      expect(consoleErrors).toEqual([]);
    });

    it("<paykit-payment renewPayin>: a renewal the backend fails says so, focuses 'try again', and the retry works", async () => {
      const expired = await createPayin();
      const page = await open(expired, "element");
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      await expect.poll(followed, PATIENT).toEqual([expired.id]);
      await mock.control.expirePayin(expired.id);

      renewPlans.push("fail");
      await renewButton(page).click();
      await expect
        .poll(() => message(page).textContent(), PATIENT)
        .toBe("Não foi possível gerar um novo pagamento.");
      expect(await heading(page).textContent()).toBe("Prazo encerrado");
      expect(await focused(page)).toBe("button renew-button");
      expect(await screen(page).locator("[role=status]").textContent()).toBe(
        "Prazo encerrado. Não foi possível gerar um novo pagamento.",
      );
      expect(await axeViolations(page)).toEqual([]);
      await picture(screen(page).locator("[part=root]"), "pix-renew-failed");

      await page.keyboard.press("Enter"); // the focused button tries again
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      const renewed = [...payins.values()].at(-1)!;
      await expect.poll(followed, PATIENT).toEqual([renewed.id]);
      await mock.control.payPayin(renewed.id);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      expect(await events(page)).toEqual([
        `renew:${expired.id}`,
        `renew:${expired.id}`,
        `final:APPROVED:${renewed.id}`,
      ]);
      // The browser reports the shop's 503 itself; nothing else.
      expect(consoleErrors.filter((error) => !error.includes("503"))).toEqual([]);
    });

    it.each([
      [375, "the code and its copy button first, the QR code second"],
      [1280, "the QR code first"],
    ])("the PIX screen %i px wide: %s", async (width) => {
      const payin = await createPayin();
      const page = await open(payin, "mount", width);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      const top = async (selector: string) => (await screen(page).locator(selector).boundingBox())!.y;
      const [code, copy, qr] = [await top("textarea"), await top("[part~=copy-button]"), await top("svg")];
      if (width < 480) expect([code < qr, copy < qr]).toEqual([true, true]);
      else expect([qr < code, qr < copy]).toEqual([true, true]);
      // On a phone the screen fits the width: nothing to scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await picture(screen(page).locator("[part=root]"), `pix-${width}`);
      expect(consoleErrors).toEqual([]);
    });
  },
);
