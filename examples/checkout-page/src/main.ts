import { parseArgs } from "node:util";
import { DEMO_KEYS, startDemo } from "./demo.js";
import { runScriptedFlow } from "./scripted-flow.js";

// The main job (`pnpm demo`, the end of `npm run quickstart`). Interactive on a terminal; headless
// with --script, or whenever stdin is not a terminal (CI has neither a TTY nor stdin).
const { values } = parseArgs({
  options: {
    script: { type: "boolean", default: false },
    port: { type: "string", default: "0" },
    "mock-port": { type: "string", default: "0" },
  },
});
const headless = values.script || !process.stdin.isTTY;
const started = performance.now();

if (headless) {
  console.log("Paykit demo (headless: --script or no terminal)");
  const demo = await startDemo({ autoAdvance: false, log: (line) => console.log(`    [merchant] ${line}`) });
  console.log(`  mock service      ${demo.mockUrl}`);
  console.log(`  merchant backend  ${demo.backend.url} (webhooks at ${demo.backend.webhookUrl})`);
  try {
    const summary = await runScriptedFlow(demo);
    const { balance } = await demo.mockControl.getAccount(demo.accountId);
    console.log(
      `▶ Balance: available ${balance.available}, reserved ${balance.reserved} (card reserve), pending ${balance.pending} cents`,
    );
    console.log(
      `\n✔ demo flow complete: 4 payins, 1 payout, ${summary.webhooksApplied} verified webhooks, ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    console.error(`\n✗ demo flow failed: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    await demo.close();
    console.log("  mock service and merchant backend stopped");
  }
} else {
  const demo = await startDemo({
    backendPort: Number(values.port),
    mockPort: Number(values["mock-port"]),
    log: (line) => console.log(`[merchant] ${line}`),
  });
  console.log(`
Paykit demo: a merchant backend on @paykit/node and @paykit/webhooks, a checkout page on
@paykit/browser/checkout, against the Paykit mock.

  checkout page    ${demo.backend.url}/
  payouts          ${demo.backend.url}/#payouts
  mock dashboard   ${demo.mockUrl}/_mock/dashboard
  mock API         ${demo.mockUrl}  (keys ${DEMO_KEYS.publicKey} / sk_test_…${DEMO_KEYS.secretKey.slice(-4)})
  webhooks         ${demo.backend.webhookUrl}  (signed, verified, de-duplicated)
  payment status   ${demo.backend.url}/payment-status?id=pi_…  (the page's live status: your session's orders only)

Pay by PIX, boleto, card (try 4000000000003220 for 3DS) or open finance; each webhook is logged below.
Press Ctrl+C to stop.
`);
  const stop = () => {
    void demo.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
