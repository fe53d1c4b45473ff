// HTML blocks load in real Chromium (Debian's, never downloaded). A block loading the 3DS `<script>`
// build of @paykit/browser runs on a page served through playwright's router (its script URL answered,
// self-hosted or CDN) and must leave `window.Paykit` defined. A block placing `<paykit-payment>` runs on
// the shop's loopback server under a strict CSP and must reach the approved state (checkout-screen.ts);
// one that also loads the 3DS build and has a form takes a card through the bank's challenge (card-page.ts).
// `context=checkout-page` blocks are bundled and run on the shop's page: a 3DS block through the mock
// acquirer's challenge, a payment-screen block (`mountPayment`) up to the approved state.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../support/chromium.js";
import { isCardPage, runCardPageBlock } from "./card-page.js";
import { expectScreenApproved, STRICT_CSP } from "./checkout-screen.js";
import type { DocBlock } from "./extract.js";
import { type PixPayin, type Shop, startShop } from "./shop.js";

let browser: Browser | undefined;

/** Launches Chromium (CHROMIUM_PATH, default /usr/bin/chromium). */
export async function startBrowser(): Promise<void> {
  browser = await launchChromium();
}

/** Closes Chromium. */
export async function stopBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

const iife = () => readFileSync(createRequire(import.meta.url).resolve("@paykit/browser/iife"), "utf8");

/** A new page whose page errors and console errors are collected. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  if (!browser) throw new Error("Chromium is not started");
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { page, errors };
}

/** Loads one HTML block and checks it ran without error. */
export async function runHtmlBlock(block: DocBlock): Promise<void> {
  if (isCardPage(block.code)) {
    const { page, errors } = await openPage();
    try {
      return await runCardPageBlock(page, block, errors);
    } finally {
      await page.close();
    }
  }
  if (/<paykit-payment\b/.test(block.code)) return runPaymentElementBlock(block);
  if (!browser) throw new Error("Chromium is not started");
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  try {
    await page.route("**/*", async (route) => {
      const url = route.request().url();
      if (url === "http://shop.test/checkout") {
        const html = `<!doctype html><html><body><div id="three-ds"></div>\n${block.code}</body></html>`;
        return route.fulfill({ contentType: "text/html", body: html });
      }
      if (/paykit-browser(\.global)?\.js$/.test(url)) {
        return route.fulfill({
          contentType: "text/javascript",
          headers: { "access-control-allow-origin": "*" },
          body: iife(),
        });
      }
      return route.fulfill({ status: 404, body: "" });
    });
    await page.goto("http://shop.test/checkout", { waitUntil: "load" });
    const ready = await page.evaluate(
      () =>
        typeof (window as unknown as { Paykit?: { handlePendingThreeDS?: unknown } }).Paykit
          ?.handlePendingThreeDS,
    );
    if (errors.length > 0) throw new Error(`page errors: ${errors.join("; ")}`);
    if (ready !== "function")
      throw new Error("window.Paykit.handlePendingThreeDS is not defined after the block loaded");
  } finally {
    await page.close();
  }
}

/** `'` and `&` escaped, for a value inside a single-quoted attribute. */
const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll("'", "&#39;");

/**
 * Runs a block placing `<paykit-payment>`: its `payin` attribute shows what the backend's template
 * renders, so the shop renders its real PIX payin there (nothing else of the block changes) and the
 * element must follow it to the approved state, firing `paykit-final`.
 */
async function runPaymentElementBlock(block: DocBlock): Promise<void> {
  const where = `${block.page}:${block.line}`;
  if (!/payin='[^']*'/.test(block.code))
    throw new Error(`${where}: <paykit-payment> has no payin='…' attribute`);
  const { page, errors } = await openPage();
  let shop: Shop | undefined;
  try {
    shop = await startShop({
      html: (pix) =>
        `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Checkout</title></head><body>\n${block.code.replace(
          /payin='[^']*'/,
          `payin='${attribute(JSON.stringify(pix))}'`,
        )}</body></html>`,
      headers: { "content-security-policy": STRICT_CSP },
    });
    // the page's listeners, added before the element is parsed as the guide says
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { docsFinal: string[] }).docsFinal = seen;
      document.addEventListener("paykit-final", (event) => {
        seen.push((event as CustomEvent<{ status: string }>).detail.status);
      });
      document.addEventListener("paykit-error", (event) => {
        console.error(`paykit-error: ${(event as CustomEvent<Error>).detail.message}`);
      });
    });
    await page.goto(`${shop.url}/checkout`);
    const global = await page.evaluate(
      () =>
        typeof (window as unknown as { PaykitCheckout?: { mountPayment?: unknown } }).PaykitCheckout
          ?.mountPayment,
    );
    if (global !== "function") throw new Error(`${where}: window.PaykitCheckout.mountPayment is not defined`);
    await expectScreenApproved({
      page,
      screen: page.locator("paykit-payment"),
      shop,
      where,
      errors,
      told: () =>
        page.evaluate(() => (window as unknown as { docsFinal: string[] }).docsFinal.includes("APPROVED")),
    });
  } finally {
    await page.close();
    await shop?.close();
  }
}

/** The checkout page of a `context=checkout-page` block; `#next-steps` is what a screen block reveals. */
function checkoutPage(pix: PixPayin): string {
  // `</script>` cannot end the JSON early
  const json = JSON.stringify(pix).replaceAll("<", "\\u003c");
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Checkout</title></head><body>
<div id="three-ds"></div><div id="payment"></div><section id="next-steps" hidden><h2>Pedido confirmado</h2></section>
<script type="application/json" id="docs-payin">${json}</script>
<script type="module" src="/block.js"></script></body></html>`;
}

/** Bundles a `context=checkout-page` block with esbuild (the built @paykit/browser, the browser's context module). */
async function bundle(file: string): Promise<string> {
  const { build } = await import("esbuild");
  const browserContexts = fileURLToPath(new URL("./browser-contexts.ts", import.meta.url));
  const bundled = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
    plugins: [
      {
        name: "browser-contexts",
        setup(b) {
          b.onResolve({ filter: /contexts\.js$/ }, () => ({ path: browserContexts }));
        },
      },
    ],
  });
  return bundled.outputFiles[0]?.text ?? "";
}

/**
 * Runs a `context=checkout-page` block in Chromium on the shop's page. A block that mounts the payment
 * screen (`mountPayment`, or a `<paykit-payment>` it creates) runs under the strict CSP and must reach the
 * approved state of the shop's PIX payin (of its renewal, for a block that renews), revealing `#next-steps`
 * from `onFinal` (or `paykit-final`). A 3DS block's backend routes create a real PENDING_3DS
 * card payin on the mock; the test approves the mock acquirer's challenge and expects the page to wait
 * for the confirmation and the payin to be APPROVED.
 */
export async function runBrowserBlock(file: string, where: string): Promise<void> {
  const source = readFileSync(file, "utf8");
  const screen = /\bmountPayment\b|"paykit-payment"/.test(source);
  const renew = /\bonRenew\b|\brenewPayin\b/.test(source);
  const script = await bundle(file);
  const { page, errors } = await openPage();
  let shop: Shop | undefined;
  try {
    shop = await startShop({
      html: checkoutPage,
      script,
      headers: screen ? { "content-security-policy": STRICT_CSP } : {},
    });
    await page.goto(`${shop.url}/checkout`);
    if (screen) {
      await expectScreenApproved({
        page,
        screen: page.locator("#payment [data-paykit-payment], #payment paykit-payment").first(),
        shop,
        where,
        errors,
        renew,
        told: () =>
          page.evaluate(() => document.querySelector("#next-steps")?.hasAttribute("hidden") === false),
      });
    } else await expectThreeDSApproved(page, shop, where, errors);
  } finally {
    await page.close();
    await shop?.close();
  }
}

async function expectThreeDSApproved(page: Page, shop: Shop, where: string, errors: string[]): Promise<void> {
  const approve = page.frameLocator("iframe").locator("#approve");
  await approve.waitFor({ state: "visible", timeout: 10_000 }).catch((error: Error) => {
    throw new Error(
      `${where}: no 3DS challenge opened (${error.message}); page errors: ${errors.join("; ") || "none"}; payins created: ${shop.created.length}`,
    );
  });
  await approve.click();
  const waitUntil = Date.now() + 10_000;
  let calls: Array<{ name: string }> = [];
  while (!calls.some((c) => c.name === "showWaitingForConfirmation")) {
    if (errors.length > 0) throw new Error(`${where}: page errors: ${errors.join("; ")}`);
    if (Date.now() > waitUntil)
      throw new Error(`${where}: the page never waited for confirmation (${JSON.stringify(calls)})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    calls = await page.evaluate(
      () => (window as unknown as { docsCalls?: Array<{ name: string }> }).docsCalls ?? [],
    );
  }
  if (shop.created.length !== 1) throw new Error(`${where}: the block created ${shop.created.length} payins`);
  const record = await shop.paykit.payins.retrieve(shop.created[0] as string);
  if (record.status !== "APPROVED") throw new Error(`${where}: the payin is ${record.status} after Approve`);
}
