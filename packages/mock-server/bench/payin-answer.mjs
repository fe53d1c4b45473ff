// What writing the PIX 201 answer from the contract's types costs (bench, not a test). Runs on src/, no build:
//   node --import tsx bench/payin-answer.mjs      (BENCH_ROUNDS=9, BENCH_REQUESTS=20000 by default)
// 1. Per answer, in one process, rounds interleaved: (a) the JSON text the mock used to write by hand
//    for a PIX payin (kept below as the baseline) and (b) what the mock writes now, `JSON.stringify` of
//    the contract-shaped `payinCreatedJson`. Same records, same BR Codes, each text measured for its
//    content-length as node:http does.
// 2. End to end: a fresh mock over node:http (pinned to core 0) answers POST /payin to autocannon (core
//    1); its CPU time per request (process.cpuUsage, so the load of other processes does not count).
// Printed: (b) - (a) per answer as a share of one POST /payin's CPU; docs/decisions/payin-201-from-contract.md
// keeps it under 5%.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { median, pin } from "./measure.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const here = fileURLToPath(new URL(".", import.meta.url));

/** The child: a fresh mock as a test suite starts it; answers the parent's "cpu" with its CPU time. */
async function serve() {
  const { createMockServer } = await import("../src/index.ts");
  const mock = await createMockServer({ autoAdvance: false });
  process.on("message", () => process.send(process.cpuUsage()));
  process.on("SIGTERM", () => mock.close().then(() => process.exit(0)));
  process.send({
    url: mock.url,
    auth: `Basic ${btoa(`${mock.account.publicKey}:${mock.account.secretKey}`)}`,
  });
}

async function main() {
  const pinned = pin(process.pid, 1);
  const perAnswer = await answerCosts();
  const perRequest = await requestCost();
  const extra = perAnswer.contract - perAnswer.template;
  console.table([
    {
      measure: "(a) PIX 201 as a hand-written template, ns per answer",
      value: Math.round(perAnswer.template),
    },
    { measure: "(b) JSON.stringify(payinCreatedJson), ns per answer", value: Math.round(perAnswer.contract) },
    { measure: "(b) - (a), ns per answer", value: Math.round(extra) },
    { measure: "POST /payin (PIX) over node:http, server CPU µs per request", value: perRequest.toFixed(1) },
  ]);
  console.log(
    `pinned: server core 0, this process core 1 (${pinned ? "ok" : "taskset unavailable"}); ${ROUNDS} rounds, medians`,
  );
  console.log(
    `(b) / (a) per answer: ${(perAnswer.contract / perAnswer.template).toFixed(2)}; (b) adds ${((extra / 1000 / perRequest) * 100).toFixed(1)}% to a POST /payin end to end (target <= 5%)`,
  );
}

// The former hand-written answer (a PIX payin only), as records.ts had it: ids, status and time are the
// mock's own letters, digits and punctuation; referenceId goes through an escape check, and the BR Code
// too unless the merchant key's codes are known to need none (they are here).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const jsonString = (value) => (NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);
let isoMs = Number.NaN;
let isoText = "";
function iso(ms) {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}
function template(p, pixCode, codesSafe) {
  return `{"id":"${p.id}","externalId":"${p.externalId}","referenceId":${jsonString(p.referenceId)},"status":"${p.status}","amount":${p.amount},"paymentMethod":"PIX","createdAt":"${iso(p.createdAt)}","pix":{"qrcode":${codesSafe ? `"${pixCode}"` : jsonString(pixCode)}}}`;
}

/** Median ns per PIX answer of (a) and (b) over the same 1,000 records (8 per millisecond, as under load). */
async function answerCosts() {
  const { payinCreatedJson, storedJson } = await import("../src/domain/records.ts");
  const { PixCharge } = await import("../src/domain/pix-charge.ts");
  const { samplePayin } = await import("../src/domain/samples.ts");
  const charge = new PixCharge("37a82ff3-0d9b-457b-9c01-242bd2cdf498");
  const sample = samplePayin("PIX", { referenceId: "order-1" });
  const t0 = Date.UTC(2026, 0, 31, 12);
  // a PayinRecord (src/domain/records.ts) as createPayin makes it for a PIX payin
  const records = Array.from({ length: 1000 }, (_, i) => ({
    id: `pi_01KAKQ6YQ1W3M0G4GQYX8V${String(i).padStart(4, "0")}`,
    accountId: "acct_1",
    externalId: `acq_AbCdEfGhIjKlMnOpQrSt${String(i).padStart(4, "0")}`,
    referenceId: sample.referenceId,
    paymentMethod: "PIX",
    amount: sample.amount,
    orderJson: storedJson({ customer: sample.customer, items: sample.items }),
    webhookUrl: null,
    createdAt: t0 + (i >> 3),
    status: "PENDING",
    netAmount: null,
    reservedAmount: null,
    reserveReleaseAt: null,
    threeDS: null,
    card: null,
    pixCharge: charge,
    boletoBarcode: null,
    boletoUrl: null,
    openFinanceRedirectUrl: null,
    pageToken: null,
    installments: null,
    transitions: null,
    trace: null,
  }));
  const codes = records.map((r) => charge.code(r.amount, r.id));
  const codesSafe = !codes.some((code) => NEEDS_ESCAPE.test(code));
  const sdkUrl = "http://127.0.0.1:4010/_mock/acquirer/three-ds.js";
  for (const [i, r] of records.entries()) {
    const a = template(r, codes[i], codesSafe);
    if (a !== JSON.stringify(payinCreatedJson(r, sdkUrl, codes[i])))
      throw new Error(`(a) and (b) differ: ${a}`);
  }
  const variants = {
    template: (i) => template(records[i], codes[i], codesSafe),
    contract: (i) => JSON.stringify(payinCreatedJson(records[i], sdkUrl, codes[i])),
  };
  const samples = { template: [], contract: [] };
  let bytes = 0;
  const n = 300_000;
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, write] of Object.entries(variants)) {
      const start = performance.now();
      // node:http's res.end measures the text for content-length, which also flattens a concatenated
      // string: the template's rope is paid for there, so each variant is measured up to that point.
      for (let k = 0; k < n; k++) bytes += Buffer.byteLength(write(k % 1000));
      // round 0 warms both up
      if (round > 0) samples[name].push(((performance.now() - start) * 1e6) / n);
    }
  }
  if (bytes === 0) throw new Error("nothing written");
  return { template: median(samples.template), contract: median(samples.contract) };
}

/** Server CPU µs per POST /payin of a fresh mock, median of ROUNDS runs of REQUESTS requests each. */
async function requestCost() {
  const { default: autocannon } = await import("autocannon");
  const { samplePayin } = await import("../src/domain/samples.ts");
  const child = spawn(
    "taskset",
    ["-c", "0", process.execPath, "--import", "tsx", `${here}payin-answer.mjs`, "server"],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const exited = once(child, "exit");
  try {
    const [info] = await once(child, "message");
    const cpu = async () => {
      child.send("cpu");
      const [usage] = await once(child, "message");
      return usage.user + usage.system;
    };
    const body = JSON.stringify(samplePayin("PIX", { referenceId: "order-1" }));
    const run = (amount) =>
      new Promise((resolve, reject) =>
        autocannon(
          {
            url: `${info.url}/payin`,
            method: "POST",
            headers: { "content-type": "application/json", authorization: info.auth },
            body,
            connections: 50,
            amount,
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        ),
      );
    await run(REQUESTS); // warm-up
    const costs = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = await cpu();
      const result = await run(REQUESTS);
      const after = await cpu();
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`POST /payin failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
      costs.push((after - before) / result.requests.total);
    }
    return median(costs);
  } finally {
    child.kill();
    await exited;
  }
}

if (process.argv[2] === "server") await serve();
else await main();
