// HTML blocks load in real Chromium (Debian's, never downloaded) on a page served through playwright's
// router: the `<script>` build of @paykit/browser answers the block's script URL (self-hosted or CDN),
// and the block must load without a page error and leave `window.Paykit` defined.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, chromium } from "playwright-core";
import type { DocBlock } from "./extract.js";

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
