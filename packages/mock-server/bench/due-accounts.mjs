// A memory-mode engine's time per POST /payin while many other accounts hold due work, as a ratio to the
// same engine with none (bench, not a test; run after `pnpm build`):
//   taskset -c 0 node bench/due-accounts.mjs      BENCH_ACCOUNTS=5000 by default
// Each other account has one PIX payin waiting to expire: a suite that opens an account per test leaves
// that behind. Every commit asks the store when its worker next has work; the store keeps each account's
// first due moment in a heap and works out again only the accounts a commit changed
// (test/memory-next-wake.test.ts). Before that, it looked at every account with due work on each
// commit: 3,000 of them made a POST /payin cost ~1.6 ms.
import { createEngine } from "../dist/engine/index.js";
import { samplePayin } from "../dist/index.js";
import { comparePayinTimes } from "./measure.mjs";

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 5_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const basic = (keys) => `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;

async function engineWith(accounts) {
  const engine = createEngine({ autoAdvance: false });
  await engine.ready;
  const post = (authorization, body) =>
    engine.dispatch({
      method: "POST",
      path: "/payin",
      query: "",
      base: "http://bench",
      header: (name) =>
        name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined,
      body,
    });
  const pix = JSON.stringify(samplePayin("PIX", { referenceId: "other" }));
  for (let i = 0; i < accounts; i++) {
    const res = await post(basic(await engine.control.createAccount({})), pix);
    if (res.status !== 201) throw new Error(`seeding failed: ${res.body}`);
  }
  return { engine, post: (body) => post(basic(engine.account), body) };
}

const empty = await engineWith(0);
const loaded = await engineWith(ACCOUNTS);
await comparePayinTimes({
  empty,
  loaded,
  samplePayin,
  requests: REQUESTS,
  rounds: ROUNDS,
  without: "with no other account",
  with: `with ${ACCOUNTS.toLocaleString("en")} other accounts holding due work`,
});
empty.engine.close();
loaded.engine.close();
process.exit(0);
