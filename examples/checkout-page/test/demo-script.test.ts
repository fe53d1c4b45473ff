import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DEFAULT_FEES, payinFee, percentOf } from "@paykit/contract";
import { signWebhook } from "@paykit/webhooks/testing";
import { describe, expect, it } from "vitest";
import { DEMO_KEYS, DEMO_OPENING_BALANCE, startDemo } from "../src/demo.js";
import { DEMO_AMOUNT } from "../src/sample-data.js";
import { runScriptedFlow } from "../src/scripted-flow.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

type Demo = Awaited<ReturnType<typeof startDemo>>;

/** Places an order as a new shopper: the backend's answer and the session cookie it started. */
async function order(demo: Demo, method: string) {
  const response = await fetch(`${demo.backend.url}/api/payins`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method }),
  });
  expect(response.status).toBe(201);
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  return { created: await response.json(), cookie };
}

const statusUrl = (demo: Demo, id: string) => `${demo.backend.url}/payment-status?id=${id}`;

describe("the demo's headless flow (pnpm demo --script)", () => {
  it("creates every payin kind, pays the PIX, authorizes open finance, completes a payout and lists it", async () => {
    const merchantLog: string[] = [];
    const out: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });

    const summary = await runScriptedFlow(demo, (line) => out.push(line));

    expect(summary.payins).toMatchObject({
      PIX: { status: "APPROVED" },
      BOLETO: { status: "PENDING" },
      CREDIT_CARD: { status: "APPROVED" },
      OPEN_FINANCE: { status: "APPROVED" },
    });
    // What a checkout page watching the PIX was sent: its status when it subscribed, then the webhook's.
    expect(summary.pixStatusStream).toEqual(["PENDING", "APPROVED"]);
    expect(summary.payout.status).toBe("COMPLETED");
    expect(summary.payoutsListed).toBe(1);
    expect(out.filter((line) => line.startsWith("▶"))).toHaveLength(9);
    expect(out.filter((line) => line.startsWith("  ✔"))).toHaveLength(9);
    // Every webhook the backend applied was verified first; PIX, open finance and two payout steps.
    expect(merchantLog.filter((line) => line.startsWith("✔ webhook verified"))).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`payin ${summary.payins.PIX.id} PIX → APPROVED`),
        expect.stringContaining(`payin ${summary.payins.OPEN_FINANCE.id} OPEN_FINANCE → APPROVED`),
        expect.stringContaining(`payout ${summary.payout.id} → COMPLETED`),
      ]),
    );
    expect(merchantLog.join("\n")).not.toContain("4111111111111111");

    // The money adds up to the cent: three approved payins net of fees, the card's reserve held, the payout debited.
    const net = (method: "PIX" | "CREDIT_CARD" | "OPEN_FINANCE") =>
      DEMO_AMOUNT - payinFee(method, DEMO_AMOUNT);
    const reserve = percentOf(net("CREDIT_CARD"), DEFAULT_FEES.cardReserveBps);
    const account = await fetch(`${demo.mockUrl}/_mock/accounts/${demo.accountId}`).then((r) => r.json());
    expect(account.balance).toMatchObject({
      available:
        DEMO_OPENING_BALANCE + net("PIX") + net("CREDIT_CARD") - reserve + net("OPEN_FINANCE") - 5_000,
      reserved: reserve,
      pending: 0,
    });
  });

  it("the backend's webhook endpoint refuses a bad signature, applies a delivery once and tells the pages", async () => {
    const merchantLog: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });
    const { created, cookie } = await order(demo, "PIX");
    const body = JSON.stringify({
      id: created.payin.id,
      status: "APPROVED",
      paymentMethod: "PIX",
      amount: DEMO_AMOUNT,
      referenceId: created.payin.referenceId,
      customer: { name: "Maria Santos", email: "maria.santos@example.com" },
      updatedAt: new Date(Date.now() + 1000).toISOString(),
    });
    const deliver = async (secret: string, webhookId: string) =>
      fetch(demo.backend.webhookUrl, {
        method: "POST",
        body,
        headers: await signWebhook(body, { secret, webhookId }),
      });

    const forged = await deliver("whsec_c29tZW9uZS1lbHNlcy1zZWNyZXQtMzJieXRlcyE=", "msg_forged");
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ code: "SIGNATURE_MISMATCH" });
    expect(demo.backend.orders.get(created.payin.id)?.status).toBe("PENDING");

    expect((await deliver(DEMO_KEYS.webhookSecret, "msg_once")).status).toBe(204);
    expect((await deliver(DEMO_KEYS.webhookSecret, "msg_once")).status).toBe(204);
    expect(demo.backend.orders.get(created.payin.id)?.status).toBe("APPROVED");
    expect(merchantLog.filter((line) => line.includes("already handled"))).toHaveLength(1);
    // The mock still says PENDING (nobody paid): APPROVED can only have come through notify.
    expect((await demo.paykit.payins.retrieve(created.payin.id)).status).toBe("PENDING");
    const status = await fetch(statusUrl(demo, created.payin.id), { headers: { cookie } });
    expect(await status.json()).toMatchObject({ id: created.payin.id, status: "APPROVED" });
  });

  it("a late or impossible webhook never moves an order back: the order guard answers it stale", async () => {
    const merchantLog: string[] = [];
    await using demo = await startDemo({ autoAdvance: false, log: (line) => merchantLog.push(line) });
    const { created } = await order(demo, "PIX");
    const deliver = async (status: string, msFromNow: number) => {
      const body = JSON.stringify({
        id: created.payin.id,
        status,
        paymentMethod: "PIX",
        amount: DEMO_AMOUNT,
        referenceId: created.payin.referenceId,
        customer: { name: "Maria Santos", email: "maria.santos@example.com" },
        updatedAt: new Date(Date.now() + msFromNow).toISOString(),
      });
      const headers = await signWebhook(body, { secret: DEMO_KEYS.webhookSecret });
      return (await fetch(demo.backend.webhookUrl, { method: "POST", body, headers })).status;
    };
    expect(await deliver("APPROVED", 1_000)).toBe(204);
    // older than what is known, and a status that cannot follow APPROVED (final) though newer
    expect(await deliver("PENDING", 500)).toBe(204);
    expect(await deliver("EXPIRED", 2_000)).toBe(204);
    expect(demo.backend.orders.get(created.payin.id)?.status).toBe("APPROVED");
    expect(merchantLog.filter((line) => line.includes("stale, APPROVED known: ignored"))).toHaveLength(2);
  });

  it("the payment-status endpoint answers the session that placed the order, and 404 to anyone else", async () => {
    await using demo = await startDemo({ autoAdvance: false, log: () => {} });
    const mine = await order(demo, "PIX");
    const theirs = await order(demo, "BOLETO");
    expect(mine.cookie).toMatch(/^sid=[\w-]{22}$/);
    expect(theirs.cookie).not.toBe(mine.cookie);
    const id = mine.created.payin.id;

    const own = await fetch(statusUrl(demo, id), { headers: { cookie: mine.cookie } });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({
      id,
      status: "PENDING",
      paymentMethod: "PIX",
      updatedAt: expect.any(String),
    });
    const unknown = await fetch(statusUrl(demo, "pi_01JZZZZZZZZZZZZZZZZZZZZZZZ"), {
      headers: { cookie: mine.cookie },
    });
    expect(unknown.status).toBe(404);
    const unknownBody = await unknown.json();
    for (const headers of [{ cookie: theirs.cookie }, {} as Record<string, string>]) {
      const refused = await fetch(statusUrl(demo, id), { headers });
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual(unknownBody); // nothing tells a refusal from an unknown id
      expect((await fetch(`${demo.backend.url}/api/payins/${id}`, { headers })).status).toBe(404);
    }
    const again = await fetch(`${demo.backend.url}/api/payins/${id}`, { headers: { cookie: mine.cookie } });
    expect(await again.json()).toEqual({ payin: mine.created.payin });
  });

  it("`node scripts/demo.mjs` without a terminal runs the script mode and exits 0", () => {
    // CI's `npm run quickstart` path: no TTY, no stdin. Runs on the built packages (turbo builds them first).
    const run = spawnSync(process.execPath, ["scripts/demo.mjs"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Paykit demo (headless");
    expect(run.stdout).toMatch(/✔ demo flow complete: 4 payins, 1 payout, \d+ verified webhooks/);
    expect(run.stdout).toContain("mock service and merchant backend stopped");
    expect(run.status).toBe(0);
  }, 70_000);
});
