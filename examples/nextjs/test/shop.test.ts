// The Next.js shop as `next build` made it, served by `next start` against the real mock: the page's
// <PaykitPayment> in real Chromium until a PIX paid through the mock's control API shows the paid state
// (the mock's signed webhook reached the webhook route, whose `notify` told the page's stream), the
// webhook route's answers (a forgery 400, a redelivery 200 as a duplicate), the status route's 404 for a
// stranger, and the <script> builds the build copied into public/vendor/.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { createMockServer, type MockServer } from "@paykit/mock-server";
import { generateWebhookSecret } from "@paykit/webhooks/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup, stopGroup } from "../../../scripts/processes.mjs";
import { launchChromium, SKIP_BROWSER } from "../../../tests/support/chromium.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const PATIENT = { timeout: 30_000 };

let mock: MockServer;
let next: ChildProcess;
let shopUrl: string;
const log: string[] = [];

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Waits for `next start` to answer; its output is in the error when it never does. */
async function answering(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (next.exitCode !== null) throw new Error(`next start exited ${next.exitCode}:\n${log.join("")}`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`next start did not answer within 60 s:\n${log.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  if (!existsSync(`${root}.next/BUILD_ID`))
    throw new Error(
      "no Next.js build: run `pnpm --filter @paykit-examples/nextjs build` (turbo runs it first)",
    );
  mock = await createMockServer({ autoAdvance: false });
  const webhookSecret = generateWebhookSecret();
  const account = await mock.control.createAccount({ webhookSecret });
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  next = spawnGroup(
    process.execPath,
    [require.resolve("next/dist/bin/next"), "start", "--hostname", "127.0.0.1", "--port", String(port)],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        PAYKIT_PUBLIC_KEY: account.publicKey,
        PAYKIT_SECRET_KEY: account.secretKey,
        PAYKIT_BASE_URL: mock.url,
        PAYKIT_WEBHOOK_SECRET: webhookSecret,
      },
    },
  );
  next.stdout?.on("data", (chunk) => log.push(String(chunk)));
  next.stderr?.on("data", (chunk) => log.push(String(chunk)));
  await answering(shopUrl);
}, 120_000);

afterAll(async () => {
  if (next) await stopGroup(next);
  await mock?.close();
}, 60_000);

/** The mock's deliveries of one payin, once each has an answer. */
async function deliveriesOf(payinId: string) {
  await mock.control.flushWebhooks();
  return (await mock.control.webhooks()).filter((d) => d.resourceId === payinId);
}

describe.skipIf(SKIP_BROWSER)("the shop's page in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("PIX: the screen shows the QR code, then the paid state once the mock's customer pays", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => void (message.type() === "error" && problems.push(message.text())));
    page.on(
      "response",
      (response) =>
        void (response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`)),
    );
    page.setDefaultTimeout(PATIENT.timeout);
    try {
      await page.goto(shopUrl);
      const ordered = page.waitForResponse((response) => response.url().endsWith("/api/orders"));
      await page.getByRole("button", { name: "Pagar com PIX" }).click();
      const payin = (await (await ordered).json()) as { id: string; status: string; pix: { qrcode: string } };
      expect(payin.status).toBe("PENDING");
      const screen = page.locator("[data-paykit-payment]");
      await screen.locator("svg").first().waitFor(); // the QR code, drawn in the browser
      expect(await screen.locator("textarea").inputValue()).toBe(payin.pix.qrcode);

      await mock.control.payPayin(payin.id); // the mock's customer pays: its signed webhook goes to the shop
      await screen.getByText("Pagamento aprovado").first().waitFor();
      await page.locator("[data-outcome=APPROVED]").waitFor();
      const [delivery] = await deliveriesOf(payin.id);
      expect(delivery).toMatchObject({ state: "delivered", status: "APPROVED" });
      expect(delivery?.attempts.at(-1)?.statusCode).toBe(204);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe("the shop's routes", () => {
  it("the webhook route verifies the raw body: a redelivery is a duplicate (200), a forgery 400", async () => {
    // A payin of the shop's own, ordered the way the page orders it.
    const ordered = await fetch(`${shopUrl}/api/orders`, { method: "POST" });
    const payin = (await ordered.json()) as { id: string };
    await mock.control.payPayin(payin.id);
    const [delivery] = await deliveriesOf(payin.id);
    expect(delivery?.attempts.at(-1)?.statusCode).toBe(204);
    await mock.control.redeliverWebhook(delivery!.id);
    const [again] = await deliveriesOf(payin.id);
    expect(again?.attempts.at(-1)?.statusCode).toBe(200); // the same webhook-id: handled before

    const forged = await fetch(`${shopUrl}/api/webhooks/paykit`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,bm90IGEgc2lnbmF0dXJl",
      },
      body: JSON.stringify({ id: payin.id, status: "REFUSED" }),
    });
    expect(forged.status).toBe(400);
  });

  it("the status route answers only the session that ordered: 404 for anyone else", async () => {
    const ordered = await fetch(`${shopUrl}/api/orders`, { method: "POST" });
    const payin = (await ordered.json()) as { id: string };
    const cookie = ordered.headers.get("set-cookie")?.split(";")[0] ?? "";
    const url = `${shopUrl}/api/payment-status?id=${payin.id}`;
    const mine = await fetch(url, { headers: { cookie } });
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ id: payin.id, status: "PENDING", paymentMethod: "PIX" });
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(url, { headers: { cookie: "sid=someone-else" } })).status).toBe(404);
  });

  it("serves the two <script> builds of @paykit/browser as they are, from public/vendor/", async () => {
    for (const [name, entry] of [
      ["paykit-checkout.js", "@paykit/browser/checkout/iife"],
      ["paykit-browser.js", "@paykit/browser/iife"],
    ] as const) {
      const response = await fetch(`${shopUrl}/vendor/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
      expect(await response.text()).toBe(readFileSync(require.resolve(entry), "utf8"));
    }
    expect((await fetch(`${shopUrl}/vendor/other.js`)).status).toBe(404);
  });
});
