// A memory-mode engine's time per POST /payin while many webhook deliveries wait for a receiver that is
// down, as a ratio to the same engine with none (bench, not a test; run after `pnpm build`):
//   taskset -c 0 node bench/pending-deliveries.mjs      BENCH_PENDING=10000 by default
// Each pending delivery is a paid PIX whose webhook URL refuses connections, attempted once and waiting
// for its retry. A request must not cost more with them: every commit asks the store when its worker
// next has work, and the store works that out again only after a change to its deliveries
// (test/memory-next-wake.test.ts). Before that, 8,000 pending deliveries made a POST /payin cost ~2 ms.

import { WEBHOOK_RETRY_DELAYS_MS } from "@paykit/contract";
import { createEngine } from "../dist/engine/index.js";
import { samplePayin } from "../dist/index.js";
import { comparePayinTimes } from "./measure.mjs";

const PENDING = Number(process.env.BENCH_PENDING ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DOWN = "http://127.0.0.1:9/webhooks";

async function engineWith(pending) {
  const engine = createEngine({ autoAdvance: false });
  await engine.ready;
  const auth = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
  const header = (name) =>
    name === "authorization" ? auth : name === "content-type" ? "application/json" : undefined;
  const post = (body) =>
    engine.dispatch({ method: "POST", path: "/payin", query: "", base: "http://bench", header, body });
  for (let i = 0; i < pending; i++) {
    const res = await post(JSON.stringify(samplePayin("PIX", { referenceId: `p-${i}`, webhookUrl: DOWN })));
    await engine.control.payPayin(JSON.parse(res.body).id);
  }
  // every delivery attempted three times (refused), the clock moved to each retry: the next one is two
  // minutes away, past the rounds timed here
  await engine.control.flushWebhooks();
  for (const delay of WEBHOOK_RETRY_DELAYS_MS.slice(0, 2)) {
    await engine.control.setClock({ advanceMs: delay });
    await engine.control.flushWebhooks();
  }
  return { engine, post };
}

const empty = await engineWith(0);
const loaded = await engineWith(PENDING);
await comparePayinTimes({
  empty,
  loaded,
  samplePayin,
  requests: REQUESTS,
  rounds: ROUNDS,
  without: "with no pending delivery",
  with: `with ${PENDING.toLocaleString("en")} pending deliveries`,
});
empty.engine.close();
loaded.engine.close();
process.exit(0);
