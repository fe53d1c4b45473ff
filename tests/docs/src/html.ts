// HTML blocks load in real Chromium (Debian's, never downloaded) on a page served through playwright's
// router: the `<script>` build of @paykit/browser answers the block's script URL (self-hosted or CDN),
// and the block must load without a page error and leave `window.Paykit` defined.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { CardData, CreditCardPayinCreateParams } from "@paykit/contract";
import { samplePayin } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { type Browser, chromium } from "playwright-core";
import type { DocBlock } from "./extract.js";
import { world } from "./world.js";

let browser: Browser | undefined;

/** Launches Chromium (CHROMIUM_PATH, default /usr/bin/chromium). */
export async function startBrowser(): Promise<void> {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** Closes Chromium. */
export async function stopBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

const iife = () => readFileSync(createRequire(import.meta.url).resolve("@paykit/browser/iife"), "utf8");

/** Loads one HTML block and checks it ran without error. */
export async function runHtmlBlock(block: DocBlock): Promise<void> {
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

/** The `checkout-page` block's backend answers, as the block's fetch expects them. */
const BACKEND_SHAPES: Record<string, "payin" | "payin-and-customer"> = {
  "/api/payins": "payin-and-customer",
  "/api/orders": "payin",
};

/**
 * Runs a `context=checkout-page` block in Chromium: bundled with esbuild (the built @paykit/browser,
 * the browser's context module), on a page whose backend routes create a real PENDING_3DS card payin
 * on the mock; the test approves the mock acquirer's challenge and expects the page to wait for the
 * confirmation and the payin to be APPROVED.
 */
export async function runBrowserBlock(file: string, where: string): Promise<void> {
  if (!browser) throw new Error("Chromium is not started");
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
  const code = bundled.outputFiles[0]?.text ?? "";
  const { keys, mock } = world();
  const paykit = new Paykit({ ...keys, baseUrl: mock.url });
  const created: string[] = [];
  let closeShop = async () => {};
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  try {
    // a real loopback server: Chromium lets only a loopback page load the mock's loopback script
    // (Private Network Access), as it would for a real shop
    const shop = createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/checkout") {
        const html = `<!doctype html><html><body><div id="three-ds"></div><script type="module" src="/block.js"></script></body></html>`;
        res.writeHead(200, { "content-type": "text/html" }).end(html);
        return;
      }
      if (url.pathname === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === "/block.js") {
        res.writeHead(200, { "content-type": "text/javascript" }).end(code);
        return;
      }
      const shape = BACKEND_SHAPES[url.pathname];
      if (!shape || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const order = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as {
        amount: number;
        card: CardData;
        customer: CreditCardPayinCreateParams["customer"];
      };
      const payin = await paykit.payins.create(
        samplePayin("CREDIT_CARD", { amount: order.amount, card: order.card, customer: order.customer }),
      );
      created.push(payin.id);
      const body = shape === "payin" ? payin : { payin, customer: order.customer };
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
    closeShop = () => new Promise<void>((resolve) => shop.close(() => resolve()));
    const SHOP = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    await page.goto(`${SHOP}/checkout`);
    const approve = page.frameLocator("iframe").locator("#approve");
    await approve.waitFor({ state: "visible", timeout: 10_000 }).catch((error: Error) => {
      throw new Error(
        `${where}: no 3DS challenge opened (${error.message}); page errors: ${errors.join("; ") || "none"}; payins created: ${created.length}`,
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
    if (created.length !== 1) throw new Error(`${where}: the block created ${created.length} payins`);
    const record = await paykit.payins.retrieve(created[0] as string);
    if (record.status !== "APPROVED")
      throw new Error(`${where}: the payin is ${record.status} after Approve`);
  } finally {
    await page.close();
    await closeShop();
  }
}
