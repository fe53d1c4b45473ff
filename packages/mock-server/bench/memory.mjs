// Heap held by 1,000,000 PIX payins (bench, not a test). Run after `pnpm build`:
//   node --expose-gc --max-old-space-size=4096 bench/memory.mjs
import { createEngine } from "../dist/index.js";

const COUNT = Number(process.env.PAYINS ?? 1_000_000);
const engine = createEngine({ autoAdvance: false });
const authorization = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
const header = (name) =>
  name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined;
const body = (i) =>
  JSON.stringify({
    paymentMethod: "PIX",
    amount: 1_000 + (i % 50_000),
    referenceId: `order-${i}`,
    isPhysicalProduct: false,
    payerIp: "200.100.50.25",
    customer: {
      name: `Cliente ${i}`,
      document: "12345678909",
      email: `cliente${i}@example.com`,
      phone: "5511987654321",
      address: {
        street: "Rua Augusta",
        number: String(i % 2000),
        zipCode: "01305000",
        city: "São Paulo",
        state: "SP",
      },
    },
    items: [{ title: "Plano mensal", quantity: 1, unitPrice: 1_000 }],
  });

globalThis.gc();
const before = process.memoryUsage().heapUsed;
const started = Date.now();
for (let i = 0; i < COUNT; i++) {
  const res = await engine.dispatch({
    method: "POST",
    path: "/payin",
    query: "",
    base: "http://bench",
    header,
    body: body(i),
  });
  if (res.status !== 201) throw new Error(String(res.body));
}
globalThis.gc();
const after = process.memoryUsage().heapUsed;
const mb = (n) => (n / 1024 / 1024).toFixed(0);
console.log(`${COUNT} payins in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(
  `heapUsed: ${mb(after)} MB (payins: ${mb(after - before)} MB, ${Math.round((after - before) / COUNT)} bytes each; target < 2048 MB)`,
);
engine.close();
