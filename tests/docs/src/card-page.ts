// An HTML block of a plain page that takes a card with both `<script>` builds of @paykit/browser (the 3DS
// flow and `<paykit-payment>`): served as printed by the shop (which answers the block's `/vendor/*.js`,
// its `POST /api/payins` with a real card payin on the mock, and `/payment-status`), filled in Chromium with
// the mock's 3DS card, the bank's challenge approved, and the page's own `paykit-final` listener must see
// APPROVED in `event.detail.status`.
import type { Page } from "playwright-core";
import type { DocBlock } from "./extract.js";
import { type Shop, startShop } from "./shop.js";

const WAIT_MS = 20_000;
/** The mock acquirer's card that answers PENDING_3DS (docs/testing.md, magic values). */
const THREE_DS_CARD = {
  holderName: "MARIA SILVA",
  number: "4000000000003220",
  expirationMonth: "12",
  expirationYear: String(new Date().getUTCFullYear() + 5),
  cvv: "123",
};

/** Whether an HTML block is such a page: both builds and the element. */
export function isCardPage(code: string): boolean {
  return /<paykit-payment\b/.test(code) && /paykit-browser(\.global)?\.js/.test(code) && /<form\b/.test(code);
}

/** Runs one card-page block in `page`; throws naming the step that did not happen. */
export async function runCardPageBlock(page: Page, block: DocBlock, errors: string[]): Promise<void> {
  const where = `${block.page}:${block.line}`;
  let shop: Shop | undefined;
  try {
    shop = await startShop({
      html: () =>
        `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Checkout</title></head><body>\n${block.code}</body></html>`,
    });
    // What the page's own listener is told, seen from outside the page.
    await page.addInitScript(() => {
      const seen: unknown[] = [];
      (window as unknown as { docsFinal: unknown[] }).docsFinal = seen;
      document.addEventListener("paykit-final", (event) => seen.push((event as CustomEvent).detail));
    });
    await page.goto(`${shop.url}/checkout`);
    for (const [name, value] of Object.entries(THREE_DS_CARD)) await page.fill(`input[name=${name}]`, value);
    await page.locator("form button").click();
    const approve = page.frameLocator("iframe").locator("#approve");
    await approve.waitFor({ state: "visible", timeout: WAIT_MS }).catch((error: Error) => {
      throw new Error(
        `${where}: no 3DS challenge opened (${error.message}); page errors: ${errors.join("; ") || "none"}; card payins: ${shop?.created.length}`,
      );
    });
    await approve.click();
    const until = Date.now() + WAIT_MS;
    for (;;) {
      if (errors.length > 0) throw new Error(`${where}: page errors: ${errors.join("; ")}`);
      const told = await page.evaluate(() => (window as unknown as { docsFinal: unknown[] }).docsFinal);
      if (told.length > 0) {
        const [detail] = told as Array<{ id?: string; status?: string }>;
        if (typeof detail !== "object" || detail?.status !== "APPROVED" || detail.id !== shop.created[0])
          throw new Error(`${where}: paykit-final's detail is ${JSON.stringify(detail)}`);
        if ((await page.title()) !== "Pedido confirmado")
          throw new Error(`${where}: the page's own listener did not run (title "${await page.title()}")`);
        return;
      }
      if (Date.now() > until) throw new Error(`${where}: no paykit-final within ${WAIT_MS / 1000} s`);
      await new Promise((done) => setTimeout(done, 50));
    }
  } finally {
    await shop?.close();
  }
}
