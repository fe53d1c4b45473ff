// Throughput of the mock against a bare node:http server (bench, not a test). Run after `pnpm build`:
//   pnpm --filter @paykit/mock-server bench
// The server runs in a child process pinned to core 0, autocannon in this process on core 1.
import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const here = fileURLToPath(new URL(".", import.meta.url));

function pin(pid, core) {
  try {
    execFileSync("taskset", ["-p", "-c", String(core), String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function startServer(kind) {
  const child = spawn("taskset", ["-c", "0", process.execPath, `${here}server.mjs`, kind], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  return { child, info: JSON.parse(line.value) };
}

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, pipelining: 1, duration: DURATION_S, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const payin = JSON.stringify({
  paymentMethod: "PIX",
  amount: 10_000,
  referenceId: "order-1",
  isPhysicalProduct: false,
  payerIp: "200.100.50.25",
  customer: {
    name: "Maria da Silva",
    document: "12345678909",
    email: "maria@example.com",
    phone: "5511987654321",
    address: { street: "Rua Augusta", number: "100", zipCode: "01305000", city: "São Paulo", state: "SP" },
  },
  items: [{ title: "Plano mensal", quantity: 1, unitPrice: 10_000 }],
});

const pinned = pin(process.pid, 1);
const rows = [];
const summary = (name, r) => ({
  name,
  reqPerSec: Math.round(r.requests.average),
  p99Ms: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});

const bare = await startServer("bare");
const bareResult = await run({
  url: `${bare.info.url}/payin`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body: payin,
});
rows.push(summary("bare node:http POST (parse + fixed JSON)", bareResult));
bare.child.kill();

const mock = await startServer("mock");
const post = await run({
  url: `${mock.info.url}/payin`,
  method: "POST",
  headers: { "content-type": "application/json", authorization: mock.info.auth },
  body: payin,
});
rows.push(summary("mock POST /payin (PIX)", post));
const small = await run({
  url: `${mock.info.url}/payout?limit=10`,
  headers: { authorization: mock.info.small },
});
rows.push(summary("mock GET /payout?limit=10, 1,000 payouts", small));
const large = await run({
  url: `${mock.info.url}/payout?limit=10`,
  headers: { authorization: mock.info.large },
});
rows.push(summary("mock GET /payout?limit=10, 100,000 payouts", large));
mock.child.kill();

console.table(rows);
console.log(
  `pinned: server core 0, autocannon core 1 (${pinned ? "ok" : "taskset unavailable"}); ${DURATION_S} s each, 50 connections`,
);
console.log(
  `POST /payin mock/bare throughput: ${(post.requests.average / bareResult.requests.average).toFixed(2)} (target >= 0.5)`,
);
console.log(
  `GET /payout page time 100,000 / 1,000 payouts (mean latency): ${(large.latency.mean / small.latency.mean).toFixed(2)} (target <= 2)`,
);
