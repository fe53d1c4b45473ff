// What a block showing the payment screen of @paykit/browser/checkout must do in Chromium, under the
// strict CSP docs/checkout.md promises: draw the screen of the shop's real PIX payin (the QR code and
// the same code to copy), then, once the mock's customer paid and the webhook reached the endpoint's
// `notify`, show the approved state live and tell the page (`onFinal`, or the `paykit-final` event).
// A block that renews (`onRenew`, `renewPayin`) first sees the mock expire that payin, presses "Gerar novo
// Pix", and must then draw the new payin the shop created, which is the one paid.
import type { Locator, Page } from "playwright-core";
import type { Shop } from "./shop.js";
import { world } from "./world.js";

/** The Content-Security-Policy of the screen's pages: no inline script or style. */
export const STRICT_CSP = "default-src 'self'";

// generous: the first screen of a run waits for its page's bundle, and a busy CI machine is slow to draw it
const WAIT_MS = 30_000;

/** Checks one payment screen from its first drawing to the approved state. */
export async function expectScreenApproved(options: {
  page: Page;
  /** The screen's host: `<paykit-payment>`, or the element `mountPayment` appended. */
  screen: Locator;
  shop: Shop;
  where: string;
  /** The page errors and console errors seen so far. */
  errors: string[];
  /** Whether the page was told the payin is APPROVED. */
  told: () => Promise<boolean>;
  /** Whether the block renews an expired PIX: the payin paid is then the shop's renewal. */
  renew?: boolean;
}): Promise<void> {
  const { screen, shop, where, errors, told, renew } = options;
  const problems = () => `page errors: ${errors.join("; ") || "none"}`;
  await screen
    .locator("svg")
    .first()
    .waitFor({ state: "visible", timeout: WAIT_MS })
    .catch(async (error: Error) => {
      const shown = (
        await screen
          .evaluate((host) => (host.shadowRoot ?? host).textContent ?? "", undefined, { timeout: 1_000 })
          .catch(() => "(no screen)")
      ).slice(0, 400);
      throw new Error(
        `${where}: no PIX QR code drawn (${error.message}); the screen shows: ${shown}; ${problems()}`,
      );
    });
  const code = await screen.locator("textarea").inputValue();
  if (code !== shop.pix.pix.qrcode) throw new Error(`${where}: the code to copy is not the payin's: ${code}`);

  let payin = shop.pix;
  if (renew) {
    await world().mock.control.expirePayin(shop.pix.id);
    await shop.notifyFromWebhook(shop.pix.id);
    await screen
      .locator("[part~=renew-button]")
      .click({ timeout: WAIT_MS })
      .catch((error: Error) => {
        throw new Error(`${where}: no renew button after the expiry (${error.message}); ${problems()}`);
      });
    const until = Date.now() + WAIT_MS;
    while (shop.renewed.length === 0 || (await screen.locator("textarea").count()) === 0) {
      if (Date.now() > until)
        throw new Error(`${where}: no renewed payin drawn within ${WAIT_MS / 1000} s; ${problems()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    payin = shop.renewed[0] as typeof payin;
    const renewed = await screen.locator("textarea").inputValue();
    if (renewed !== payin.pix.qrcode)
      throw new Error(`${where}: the code to copy is not the renewal's: ${renewed}`);
  }

  await world().mock.control.payPayin(payin.id); // the mock's customer pays
  await shop.notifyFromWebhook(payin.id);
  const until = Date.now() + WAIT_MS;
  for (;;) {
    if (errors.length > 0) throw new Error(`${where}: ${problems()}`);
    const approved = await screen.getByText(/^(Pagamento aprovado|Payment approved)$/).count();
    if (approved > 0 && (await told())) return;
    if (Date.now() > until) {
      // the text inside the screen's shadow root (Playwright's locators pierce it)
      const text = await screen
        .locator("[part~=root]")
        .first()
        .textContent({ timeout: 1_000 })
        .catch(() => "(no screen)");
      throw new Error(`${where}: the screen did not reach the approved state within 10 s: "${text}"`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}
