// The whole post-order 3DS flow in real headless Chromium: the IIFE build on a checkout page with a strict CSP,
// the mock acquirer's script and challenge iframe, the payin's status and its webhook. Never downloads a browser.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CreditCardPayinCreated } from "@paykit/contract";
import { createMockServer, type MockServer } from "@paykit/mock-server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium, SKIP_BROWSER as skip } from "../../../tests/support/chromium.js";
import { challengeData, THREE_DS_CARD } from "./fixtures.js";

const NONCE = "paykit-e2e-nonce";
const screenshots = fileURLToPath(new URL("../test-results/", import.meta.url));

type Outcome =
  | { result: { status: string; payinId: string; transactionId: string } }
  | { error: { name: string; code: string; message: string; guarded: boolean } };

/** Starts a node:http server on 127.0.0.1, port 0. */
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<[Server, string]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The merchant's checkout page under a strict CSP built as README.md tells merchants to build it;
 * `scriptSources` is what script-src allows besides 'self' (the page's nonce, the acquirer's origin).
 */
function checkoutPage(mockOrigin: string, scriptSources: string): { csp: string; html: string } {
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${scriptSources}`,
    `frame-src ${mockOrigin}`,
    "connect-src 'self'",
  ].join("; ");
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>Checkout</title>
<script src="/paykit-browser.global.js"></script></head>
<body><h1>Checkout</h1><div id="challenge"></div>
<script nonce="${NONCE}">
window.paykitEvents = [];
window.pay = function (payin, data, options) {
  options.onEvent = function (event) { window.paykitEvents.push(event.type); };
  if (options.container) options.container = document.querySelector(options.container);
  return window.Paykit.handlePendingThreeDS(payin, data, options).then(
    function (result) { return { result: result }; },
    function (error) {
      return { error: { name: error.name, code: error.code, message: error.message, guarded: window.Paykit.isPaykitThreeDSError(error) } };
    });
};
</script></body></html>`;
  return { csp, html };
}

describe.skipIf(skip)(
  "3DS end to end in headless Chromium (IIFE build + mock acquirer)",
  { timeout: 20_000 },
  () => {
    let mock: MockServer;
    let shop: Server;
    let shopUrl: string;
    let receiver: Server;
    let receiverUrl: string;
    let browser: Browser;
    const webhooks: Array<{ id: string; status: string }> = [];

    beforeAll(async () => {
      mock = await createMockServer();
      const iife = readFileSync(join(inject("buildDir"), "paykit-browser.global.js"));
      const mockOrigin = new URL(mock.url).origin;
      const pages: Record<string, { csp: string; html: string }> = {
        "/checkout": checkoutPage(mockOrigin, `'nonce-${NONCE}' ${mockOrigin}`),
        // A policy that forgets the acquirer's origin: only the nonce of the page's own inline script.
        "/checkout-forgetting-the-acquirer": checkoutPage(mockOrigin, `'nonce-${NONCE}'`),
      };
      [shop, shopUrl] = await listen((req, res) => {
        // A checkout page for another mock on this host (`/checkout-for/<port>`), as a restarted one.
        const other = /^\/checkout-for\/(\d+)$/.exec(req.url ?? "")?.[1];
        const otherOrigin = `http://127.0.0.1:${other}`;
        const page = other
          ? checkoutPage(otherOrigin, `'nonce-${NONCE}' ${otherOrigin}`)
          : pages[req.url ?? ""];
        if (page) {
          res.writeHead(200, {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": page.csp,
          });
          res.end(page.html);
        } else if (req.url === "/paykit-browser.global.js") {
          res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
          res.end(iife);
        } else if (req.url === "/never.js") {
          // Accepts the request and never answers: a stalled acquirer CDN (cut when the server closes).
        } else {
          res.writeHead(404).end();
        }
      });
      [receiver, receiverUrl] = await listen((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on("end", () => {
          webhooks.push(JSON.parse(body));
          res.writeHead(204).end();
        });
      });
      browser = await launchChromium({ screenshots });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await Promise.all([shop && close(shop), receiver && close(receiver), mock?.close()]);
    });

    type Keys = { publicKey: string; secretKey: string };
    const auth = (keys: Keys = mock.account) => `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;

    /** The merchant backend creates a CREDIT_CARD payin with the 3DS test card (on `url`, as `keys`). */
    async function createPendingPayin(
      url = mock.url,
      keys: Keys = mock.account,
    ): Promise<CreditCardPayinCreated> {
      const response = await fetch(`${url}/payin`, {
        method: "POST",
        headers: { authorization: auth(keys), "content-type": "application/json" },
        body: JSON.stringify({
          paymentMethod: "CREDIT_CARD",
          amount: challengeData.amount,
          referenceId: `order-${crypto.randomUUID()}`,
          isPhysicalProduct: false,
          payerIp: "203.0.113.7",
          items: [{ title: "Camiseta", quantity: 1, unitPrice: challengeData.amount }],
          webhookUrl: `${receiverUrl}/webhooks/paykit`,
          customer: {
            ...challengeData.customer,
            address: {
              street: "Av. Paulista",
              number: "1000",
              zipCode: "01310100",
              city: "São Paulo",
              state: "SP",
            },
          },
          card: { ...THREE_DS_CARD, installments: challengeData.installments },
        }),
      });
      const payin = (await response.json()) as CreditCardPayinCreated;
      expect(response.status, JSON.stringify(payin)).toBe(201);
      expect(payin).toMatchObject({ status: "PENDING_3DS", threeDSecurePending: true });
      return payin;
    }

    /** The merchant backend reads the payin (GET /payin/{id}): the authoritative status. */
    async function payinStatus(id: string, keys: Keys = mock.account): Promise<string> {
      const response = await fetch(`${mock.url}/payin/${id}`, { headers: { authorization: auth(keys) } });
      return ((await response.json()) as { status: string }).status;
    }

    async function openCheckout(path = "/checkout"): Promise<Page> {
      const page = await browser.newPage();
      await page.goto(`${shopUrl}${path}`);
      return page;
    }

    /** Starts handlePendingThreeDS in the page (with the page's nonce); settles when the flow does. */
    function pay(page: Page, payin: unknown, options: Record<string, unknown> = {}): Promise<Outcome> {
      return page.evaluate(
        ([p, d, o]) => (window as unknown as { pay: (...args: unknown[]) => Promise<Outcome> }).pay(p, d, o),
        [payin, challengeData, { nonce: NONCE, ...options }] as const,
      );
    }

    const challengeButton = (page: Page, id: string) => page.frameLocator("iframe").locator(id);

    it.each([
      ["Approve", "AUTHENTICATED", "APPROVED", "#approve", {}],
      ["Reject", "REJECTED", "REFUSED", "#reject", { container: "#challenge" }],
    ] as const)(
      "%s in the challenge: the flow resolves %s, the payin reads %s and its webhook arrives",
      async (label, status, payinAfter, button, options) => {
        const payin = await createPendingPayin();
        const page = await openCheckout();
        const flow = pay(page, payin, options);
        await expect.poll(() => challengeButton(page, button).isEnabled()).toBe(true);
        if (label === "Approve") await page.screenshot({ path: join(screenshots, "three-ds-challenge.png") });
        await challengeButton(page, button).click();

        await expect(flow).resolves.toEqual({
          result: { status, payinId: payin.id, transactionId: payin.threeDSecureTransactionId },
        });
        expect(
          await page.evaluate(() => (window as unknown as { paykitEvents: string[] }).paykitEvents),
        ).toEqual(["script-loading", "script-loaded", "challenge-opened", "challenge-completed"]);
        expect(await payinStatus(payin.id)).toBe(payinAfter);
        await expect
          .poll(() => webhooks.find((hook) => hook.id === payin.id), { timeout: 5_000 })
          .toMatchObject({ id: payin.id, status: payinAfter });
        await page.close();
      },
    );

    it("Cancel in the challenge: the flow resolves CANCELED and the payin stays PENDING_3DS, with no webhook", async () => {
      const payin = await createPendingPayin();
      const page = await openCheckout();
      const flow = pay(page, payin);
      await challengeButton(page, "#cancel").click();

      await expect(flow).resolves.toEqual({
        result: { status: "CANCELED", payinId: payin.id, transactionId: payin.threeDSecureTransactionId },
      });
      expect(await payinStatus(payin.id)).toBe("PENDING_3DS");
      const deliveries = await mock.control.webhooks(mock.account.accountId);
      expect(deliveries.filter((delivery) => delivery.resourceId === payin.id)).toEqual([]);
      expect(await page.locator("iframe").count()).toBe(0);
      await page.close();
    });

    it("a 404 script URL rejects with SCRIPT_LOAD_FAILED", async () => {
      const payin = await createPendingPayin();
      const page = await openCheckout();
      const outcome = await pay(page, {
        ...payin,
        threeDSecureSdkUrl: `${mock.url}/_mock/acquirer/missing.js`,
      });
      expect(outcome).toMatchObject({
        error: { name: "PaykitThreeDSError", code: "SCRIPT_LOAD_FAILED", guarded: true },
      });
      expect(await payinStatus(payin.id)).toBe("PENDING_3DS");
      await page.close();
    });

    it("a CSP allowing neither the acquirer's origin nor the tag's nonce blocks the script; the nonce option fixes it", async () => {
      const payin = await createPendingPayin();
      const blocked = await openCheckout("/checkout-forgetting-the-acquirer");
      expect(await pay(blocked, payin, { nonce: undefined })).toMatchObject({
        error: { code: "SCRIPT_LOAD_FAILED" },
      });
      await blocked.close();

      const allowed = await openCheckout("/checkout-forgetting-the-acquirer");
      const flow = pay(allowed, payin);
      await challengeButton(allowed, "#cancel").click();
      await expect(flow).resolves.toMatchObject({ result: { status: "CANCELED" } });
      await allowed.close();
    });

    it("a script that never answers rejects with SCRIPT_TIMEOUT after timeoutMs", async () => {
      const payin = await createPendingPayin();
      const page = await openCheckout();
      // The page's own origin serves the stalled script, so the CSP's script-src 'self' allows it.
      const outcome = await pay(
        page,
        { ...payin, threeDSecureSdkUrl: `${shopUrl}/never.js` },
        { timeoutMs: 1_000 },
      );
      expect(outcome).toMatchObject({ error: { code: "SCRIPT_TIMEOUT", guarded: true } });
      await page.close();
    });

    /** Every element the mock acquirer put in the page (its iframe, its modal overlay). */
    const acquirerUi = (page: Page) => page.locator("[data-paykit-mock-3ds]").count();

    it("a stale 201 (the mock restarted in memory): the challenge refuses, the flow rejects CHALLENGE_UNAVAILABLE and its iframe is gone", async () => {
      const before = await createMockServer();
      const port = Number(new URL(before.url).port);
      const payin = await createPendingPayin(before.url, before.account);
      await before.close();
      const after = await createMockServer({ port });
      try {
        const page = await openCheckout(`/checkout-for/${port}`);
        const outcome = await pay(page, payin, { container: "#challenge" });
        expect(outcome).toMatchObject({
          error: { name: "PaykitThreeDSError", code: "CHALLENGE_UNAVAILABLE", guarded: true },
        });
        expect(await acquirerUi(page)).toBe(0);
        expect(
          await page.evaluate(() => (window as unknown as { paykitEvents: string[] }).paykitEvents),
        ).toEqual(["script-loading", "script-loaded", "challenge-opened"]);
        await page.close();
      } finally {
        await after.close();
      }
    });

    it("a payin already APPROVED opens no live challenge: the flow rejects CHALLENGE_UNAVAILABLE, the payin and its webhooks stay as they were", async () => {
      const payin = await createPendingPayin();
      await mock.control.completeThreeDS(payin.id, "AUTHENTICATED");
      const page = await openCheckout();
      const outcome = await pay(page, payin);
      expect(outcome).toMatchObject({ error: { code: "CHALLENGE_UNAVAILABLE", guarded: true } });
      expect(await acquirerUi(page)).toBe(0);
      expect(await payinStatus(payin.id)).toBe("APPROVED");
      const deliveries = await mock.control.webhooks(mock.account.accountId);
      expect(deliveries.filter((d) => d.resourceId === payin.id).map((d) => d.status)).toEqual(["APPROVED"]);
      await page.close();
    });

    it("PENDING_3DS expires 15 minutes after creation on the mock clock, with its EXPIRED webhook; the challenge then rejects CHALLENGE_EXPIRED", async () => {
      // An account of its own, whose clock this test moves without touching the other tests' payins.
      const keys = await mock.control.createAccount();
      const payin = await createPendingPayin(mock.url, keys);
      await mock.control.setAccountClock(keys.accountId, { advanceMs: 15 * 60_000 });
      expect(await payinStatus(payin.id, keys)).toBe("EXPIRED");
      await expect
        .poll(() => webhooks.find((hook) => hook.id === payin.id), { timeout: 5_000 })
        .toMatchObject({ id: payin.id, status: "EXPIRED" });

      const page = await openCheckout();
      const outcome = await pay(page, payin, { container: "#challenge" });
      expect(outcome).toMatchObject({ error: { code: "CHALLENGE_EXPIRED", guarded: true } });
      expect(await acquirerUi(page)).toBe(0);
      await page.close();
    });

    it("challengeTimeoutMs elapsing rejects CHALLENGE_TIMEOUT and removes the challenge and its modal; the payin stays PENDING_3DS", async () => {
      const payin = await createPendingPayin();
      const page = await openCheckout();
      // Long enough for a loaded machine to show the challenge first; the test waits for it, never for a time.
      const flow = pay(page, payin, { challengeTimeoutMs: 6_000 });
      // The challenge is on screen (modal and iframe) and the customer does nothing.
      await expect.poll(() => challengeButton(page, "#approve").isEnabled(), { timeout: 5_000 }).toBe(true);
      expect(await acquirerUi(page)).toBe(2);
      expect(await flow).toMatchObject({ error: { code: "CHALLENGE_TIMEOUT", guarded: true } });
      expect(await acquirerUi(page)).toBe(0);
      expect(await payinStatus(payin.id)).toBe("PENDING_3DS");
      await page.close();
    });
  },
);
