// CPU per POST /payin (PIX) of the engine alone, in process (bench, not a test). Run after `pnpm build`:
//   taskset -c 0 node bench/profile-payin.mjs            (add --cpu-prof to profile the loop)
// Each request gets its own body string decoded from bytes, as the node:http adapter hands it over, and
// every payin is kept (a fresh engine growing to 320,000 payins), so the figure includes the garbage
// collection a test suite's mock pays.
import { createEngine } from "../dist/engine/index.js";
import { samplePayin } from "../dist/index.js";

const engine = createEngine({ autoAdvance: false });
const auth = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
const bytes = Buffer.from(JSON.stringify(samplePayin("PIX", { referenceId: "order-1" })));
const header = (name) =>
  name === "authorization" ? auth : name === "content-type" ? "application/json" : undefined;
const request = () => ({
  method: "POST",
  path: "/payin",
  query: "",
  base: "http://127.0.0.1:4555",
  header,
  body: bytes.toString("utf8"),
});

let first;
for (let i = 0; i < 20000; i++) first ??= await engine.dispatch(request());
if (first.status !== 201) throw new Error(`POST /payin answered ${first.status}: ${first.body}`);
const n = 300000;
const t = performance.now();
for (let i = 0; i < n; i++) await engine.dispatch(request());
console.log((((performance.now() - t) * 1000) / n).toFixed(2), "µs per POST /payin dispatch");
console.log(`201 answer: ${Buffer.byteLength(first.body)} bytes`);
engine.close();
