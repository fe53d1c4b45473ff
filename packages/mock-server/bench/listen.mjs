// What `paykit-mock listen` costs a delivery (bench, not a test). Run after `pnpm build`:
//   node bench/listen.mjs        (LISTEN_EVENTS=300, LISTEN_ROUNDS=3 by default)
// One mock, one receiver; each round pays LISTEN_EVENTS PIX payins one after another and times each
// from the control call to the receiver's request, once with the receiver as the payin's webhookUrl
// (the baseline: the mock posts to it) and once with a listener attached (the mock hands the attempt to
// the listener's poll, the listener posts it, and its answer goes back with the next poll). Rounds
// alternate, and the median of each is reported, with the ratio of the two in the same run.
import { createServer } from "node:http";
import { createHttpControl, createMockServer, runListener, samplePayin } from "../dist/index.js";
import { median } from "./measure.mjs";

const EVENTS = Number(process.env.LISTEN_EVENTS ?? 300);
const ROUNDS = Number(process.env.LISTEN_ROUNDS ?? 3);

// payin id -> resolves with the time its delivery reached the receiver
const waiting = new Map();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const at = performance.now();
    res.writeHead(200).end();
    waiting.get(JSON.parse(body).id)?.(at);
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/webhooks`;

const mock = await createMockServer({ autoAdvance: false });
const keys = await mock.control.createAccount({ balance: 0 });
const authorization = `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;
const control = createHttpControl({ url: mock.url });

/** Pays `EVENTS` payins one at a time; answers each delivery's ms from the pay call to the receiver. */
async function deliveries(webhookUrl) {
  const times = [];
  for (let i = 0; i < EVENTS; i++) {
    const created = await fetch(`${mock.url}/payin`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(samplePayin("PIX", { webhookUrl })),
    });
    const { id } = await created.json();
    const arrived = new Promise((resolve) => waiting.set(id, resolve));
    const start = performance.now();
    await control.payPayin(id);
    const at = await arrived;
    waiting.delete(id);
    times.push(at - start);
  }
  return times;
}

const direct = [];
const listened = [];
for (let round = 0; round < ROUNDS; round++) {
  await mock.control.resetAccount(keys.accountId);
  direct.push(median(await deliveries(receiverUrl)));
  const stop = new AbortController();
  let attached;
  const ready = new Promise((resolve) => {
    attached = resolve;
  });
  const listening = runListener(
    { url: mock.url, keys, forwardTo: receiverUrl, signal: stop.signal },
    { ready: () => attached(), delivery() {}, connection() {} },
  );
  await ready;
  await mock.control.resetAccount(keys.accountId);
  listened.push(median(await deliveries("http://127.0.0.1:9/webhooks")));
  stop.abort();
  await listening;
}

const d = median(direct);
const l = median(listened);
console.log(`listen: ${EVENTS} deliveries x ${ROUNDS} rounds, median from the pay call to the receiver`);
console.log(`  mock -> receiver           ${d.toFixed(2)} ms`);
console.log(
  `  mock -> listen -> receiver ${l.toFixed(2)} ms  (${(l / d).toFixed(2)}x, +${(l - d).toFixed(2)} ms)`,
);
await mock.close();
receiver.close();
