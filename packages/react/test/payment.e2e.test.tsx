// <PaykitPayment> and usePaymentStatus in real headless Chromium (Debian's, never downloaded): the server
// renders the page with renderToString, the browser hydrates it under StrictMode with React's development
// build (which reports any hydration mismatch as a console error), the page runs under a strict CSP, and the
// status comes from createPaymentStatus of @paykit/node/checkout fed by the real mock's webhooks.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { PayinCreated } from "@paykit/contract";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { createPaymentStatus, type PaymentStatusEndpoint, toNodeListener } from "@paykit/node/checkout";
import { build } from "esbuild";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { renderToString } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, SKIP_BROWSER } from "../../../tests/support/chromium.js";
import { App } from "./e2e/app.js";

/** Generous, for a loaded 2-core machine. */
const PATIENT = { timeout: 15_000 };
const CSP = "default-src 'self'";

/** The page's script: client.tsx with React (the one this project tests) and @paykit/browser's source. */
async function bundleClient(): Promise<string> {
  // tests/react18 names its React 18 directories; here React 19 resolves from this package.
  const homes = JSON.parse(process.env.PAYKIT_REACT_HOME ?? "{}") as Record<string, string>;
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./e2e/client.tsx", import.meta.url))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    conditions: ["@paykit/source"],
    alias: homes,
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

const escapeJson = (json: string) => json.replace(/</g, "\\u003c");

function html(payin: PayinCreated): string {
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Checkout</title>
<script type="module" src="/app.js"></script></head>
<body><div id="root">${renderToString(<App payin={payin} />)}</div>
<script type="application/json" id="payin">${escapeJson(JSON.stringify(payin))}</script></body></html>`;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

describe.skipIf(SKIP_BROWSER)(
  "<PaykitPayment> in Chromium: SSR, hydration, StrictMode, unmount",
  { timeout: 60_000 },
  () => {
    let mock: MockServer;
    let paykit: Paykit;
    let paymentStatus: PaymentStatusEndpoint;
    let shop: Server;
    let shopUrl: string;
    let browser: Browser;
    let context: BrowserContext | undefined;
    let script: string;
    const payins = new Map<string, PayinCreated>();
    const streams = new Set<ServerResponse>();
    const requests = { stream: 0, json: 0 };
    let consoleErrors: string[] = [];

    beforeAll(async () => {
      script = await bundleClient();
      mock = await createMockServer({ autoAdvance: false });
      paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
      paymentStatus = createPaymentStatus({ paykit, authorize: (_request, id) => payins.has(id) });
      const statusListener = toNodeListener(paymentStatus.handler);
      shop = createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://shop");
        const page = /^\/checkout\/(pi_\w+)$/.exec(url.pathname);
        if (page && payins.has(page[1]!)) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP });
          res.end(html(payins.get(page[1]!)!));
        } else if (url.pathname === "/app.js") {
          res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
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
          // The merchant's webhook receiver: verify, then tell every page watching the payin.
          void body(req)
            .then((raw) => paykit.webhooks.parse(raw, req.headers))
            .then((event) => paymentStatus.notify(event))
            .then(
              () => res.writeHead(204).end(),
              () => res.writeHead(400).end(),
            );
        } else if (url.pathname === "/favicon.ico") {
          res.writeHead(204).end();
        } else {
          res.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
      shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
      browser = await launchChromium();
    }, 90_000);

    afterEach(async () => {
      await context?.close();
      context = undefined;
    });

    afterAll(async () => {
      await browser?.close();
      await paymentStatus?.close();
      shop?.closeAllConnections();
      await Promise.all([shop && new Promise<void>((resolve) => shop.close(() => resolve())), mock?.close()]);
    });

    async function open(): Promise<[Page, PayinCreated]> {
      const payin = await paykit.payins.create({ ...samplePayin("PIX"), webhookUrl: `${shopUrl}/webhooks` });
      payins.set(payin.id, payin);
      requests.stream = 0;
      requests.json = 0;
      context = await browser.newContext();
      const page = await context.newPage();
      consoleErrors = [];
      page.on("console", (message) => message.type() === "error" && consoleErrors.push(message.text()));
      page.on("pageerror", (error) => consoleErrors.push(error.message));
      await page.goto(`${shopUrl}/checkout/${payin.id}`);
      return [page, payin];
    }

    const heading = (page: Page) => page.locator("[data-paykit-payment] h2");

    it("hydrates the server's placeholder with no warning, follows one stream each, and shows the approval", async () => {
      const [page, payin] = await open();
      const served = await (await fetch(`${shopUrl}/checkout/${payin.id}`)).text();
      expect(served).toContain(
        '<p data-paykit-placeholder="" role="status" lang="pt-BR">Carregando o pagamento…</p>',
      );

      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      await expect
        .poll(() => [...streams].filter((response) => response.headersSent).length, PATIENT)
        .toBe(2);
      await expect(page.locator("[data-paykit-placeholder]").count()).resolves.toBe(0);

      await mock.control.payPayin(payin.id);
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pagamento aprovado");
      await expect.poll(() => page.locator("#order-status").textContent(), PATIENT).toBe("Pedido: APPROVED");
      expect(
        await page.evaluate(() => (window as unknown as { paykitEvents: string[] }).paykitEvents),
      ).toEqual(["final:APPROVED"]);
      // StrictMode mounted everything twice; the screen and the hook each opened one stream, never a second.
      expect(requests).toEqual({ stream: 2, json: 0 });
      await expect.poll(() => streams.size, PATIENT).toBe(0);
      expect(consoleErrors).toEqual([]);
    });

    it("closes both streams when the shopper leaves the payment step, and asks nothing more", async () => {
      const [page] = await open();
      await expect.poll(() => heading(page).textContent(), PATIENT).toBe("Pague com PIX");
      await expect
        .poll(() => [...streams].filter((response) => response.headersSent).length, PATIENT)
        .toBe(2);

      await page.getByRole("button", { name: "Escolher outra forma de pagamento" }).click();
      await expect.poll(() => page.locator("#left").count(), PATIENT).toBe(1);
      await expect.poll(() => streams.size, PATIENT).toBe(0);
      const after = { ...requests };
      // Longer than the first poll interval (2 s) of a watch that would have fallen back to polling.
      await page.waitForTimeout(3_000);
      expect(requests).toEqual(after);
      expect(await page.locator("[data-paykit-payment]").count()).toBe(0);
      expect(consoleErrors).toEqual([]);
    });
  },
);
