// What the real-browser tests of the payment screen share: a node:http server on loopback for the merchant's shop,
// axe-core's serious and critical violations of a page (shadow roots included), and the screen's pictures, which
// PAYKIT_UPDATE_SCREENSHOTS=1 also copies to docs/images/ (how the guide's pictures are made: never by hand).
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";

/** Waits for a page to catch up: generous, for a loaded 2-core machine. */
export const PATIENT = { timeout: 10_000 };

const results = fileURLToPath(new URL("../test-results/checkout/", import.meta.url));
const docsImages = fileURLToPath(new URL("../../../docs/images/", import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Starts a node:http server on 127.0.0.1, port 0; answers it and its origin. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<[Server, string]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

/** Closes a server and every connection it holds (event streams included). */
export function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A request's body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

/** An HTML attribute's value, escaped. */
export const attribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** axe-core's serious and critical violations on the whole page, shadow roots included. */
export async function axeViolations(
  page: Page,
): Promise<Array<{ id: string; impact: string; nodes: number }>> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(): Promise<{ violations: Array<Record<string, unknown>> }> } }
    ).axe;
    return (await axe.run()).violations.map((v) => ({
      id: v.id as string,
      impact: v.impact as string,
      nodes: (v.nodes as unknown[]).length,
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Saves a picture of the screen to test-results/checkout/checkout-NAME.png (and to docs/images/ on demand). */
export async function picture(screen: Locator, name: string): Promise<Buffer> {
  mkdirSync(results, { recursive: true });
  const file = join(results, `checkout-${name}.png`);
  const png = await screen.screenshot({ path: file, animations: "disabled" });
  if (process.env.PAYKIT_UPDATE_SCREENSHOTS === "1") {
    mkdirSync(docsImages, { recursive: true });
    copyFileSync(file, join(docsImages, `checkout-${name}.png`));
  }
  return png;
}
