// A control list's page costs the page, not the history (bench, not a test). Run after `pnpm build`:
//   node bench/control-lists.mjs            (SMALL=1000 BIG=50000 to change the two account sizes)
// Two engines, one with SMALL paid payins (each with its delivery) and one with BIG, answer the same
// pages of GET /_mock/payins and GET /_mock/webhooks: the first page, and a page found by a cursor
// deep in the list. Printed: each page's time on the big account as a ratio to the small one's (flat
// means about 1), and the bytes of the first page (the same whatever the history).
import { createEngine } from "../dist/index.js";

const SMALL = Number(process.env.SMALL ?? 1_000);
const BIG = Number(process.env.BIG ?? 50_000);
const ROUNDS = 1000;

async function seeded(count) {
  const engine = createEngine({ autoAdvance: false, fetch: async () => new Response(null, { status: 204 }) });
  const authorization = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
  const header = (name) =>
    name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined;
  for (let i = 0; i < count; i++) {
    const res = await engine.dispatch({
      method: "POST",
      path: "/payin",
      query: "",
      base: "http://bench",
      header,
      body: JSON.stringify({
        paymentMethod: "PIX",
        amount: 1_000 + (i % 5_000),
        referenceId: `order-${i}`,
        webhookUrl: "https://shop.bench/hook",
        isPhysicalProduct: false,
        payerIp: "200.100.50.25",
        customer: {
          name: `Cliente ${i}`,
          document: "12345678909",
          email: `cliente${i}@example.com`,
          phone: "5511987654321",
          address: {
            street: "Rua Augusta",
            number: "1",
            zipCode: "01305000",
            city: "São Paulo",
            state: "SP",
          },
        },
        items: [{ title: "Plano mensal", quantity: 1, unitPrice: 1_000 }],
      }),
    });
    if (res.status !== 201) throw new Error(String(res.body));
    await engine.control.payPayin(JSON.parse(res.body).id);
  }
  await engine.control.flushWebhooks();
  return engine;
}

const get = (engine, path, query) =>
  engine.dispatch({ method: "GET", path, query, base: "http://bench", header: () => undefined, body: null });

// The cursor of the page that starts half way down the list.
async function midCursor(engine, path, count) {
  const res = await get(engine, path, `limit=${Math.min(1000, Math.floor(count / 2))}`);
  return JSON.parse(res.body).nextCursor;
}

async function timed(engine, path, query) {
  const started = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const res = await get(engine, path, query);
    if (res.status !== 200) throw new Error(String(res.body));
    bytes = res.body.length;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6 / ROUNDS, bytes };
}

const small = await seeded(SMALL);
const big = await seeded(BIG);
for (const path of ["/_mock/payins", "/_mock/webhooks"]) {
  const pages = [
    ["first page", "", ""],
    ["page by cursor", await midCursor(small, path, SMALL), await midCursor(big, path, BIG)],
  ];
  for (const [name, smallCursor, bigCursor] of pages) {
    // warm-up of both engines, then the measured rounds
    await timed(small, path, smallCursor ? `cursor=${smallCursor}` : "");
    await timed(big, path, bigCursor ? `cursor=${bigCursor}` : "");
    const a = await timed(small, path, smallCursor ? `cursor=${smallCursor}` : "");
    const b = await timed(big, path, bigCursor ? `cursor=${bigCursor}` : "");
    console.log(
      `${path} ${name}: ${SMALL} records ${a.ms.toFixed(2)} ms, ${BIG} records ${b.ms.toFixed(2)} ms ` +
        `(ratio ${(b.ms / a.ms).toFixed(2)}); ${b.bytes} bytes (small account: ${a.bytes})`,
    );
  }
}
small.close();
big.close();
