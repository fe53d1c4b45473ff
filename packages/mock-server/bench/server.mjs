// A server for bench/run.mjs, run in its own process pinned to core 0. Kinds:
//   bare         parses the body and answers a fixed JSON the size of a PIX 201 (the node:http baseline)
//   mock         a fresh createMockServer(), as a user's test suite starts it (the POST /payin run);
//                argv[3], when given, is another build's dist entry (bench/baseline.mjs) to start instead
//   mock-seeded  a mock with accounts of 1,000 and 100,000 payouts (the GET /payout runs); seeded in
//                its own process, so the POST run never pays for this heap's garbage collection
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

const kind = process.argv[2];
const announce = (info) => process.stdout.write(`${JSON.stringify(info)}\n`);

async function seed(engine, balance, count) {
  const keys = await engine.control.createAccount({
    balance,
    autoAdvance: false,
    limits: { nightMaxCents: 10_000_000 },
  });
  const authorization = `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;
  for (let i = 0; i < count; i++) {
    const res = await engine.dispatch({
      method: "POST",
      path: "/payout",
      query: "",
      base: "http://bench",
      header: (name) =>
        name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined,
      body: JSON.stringify({
        amount: 1_000,
        pixKey: "maria.santos@example.com",
        pixKeyType: "EMAIL",
        referenceId: `seed-${i}`,
      }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.body}`);
  }
  return authorization;
}

// The bare server's fixed answer has the size and shape of the mock's PIX 201 answer, so that both
// servers write the same bytes per response and the ratio measures the mock's work alone.
const PIX_CREATED = {
  id: "pi_01KAKQ6YQ1W3M0G4GQYX8V4D2B",
  externalId: "acq_AbCdEfGhIjKlMnOpQrStUvWx",
  referenceId: "order-1",
  status: "PENDING",
  amount: 10000,
  paymentMethod: "PIX",
  createdAt: "2026-01-31T12:00:00.000Z",
  pix: {
    qrcode:
      "00020101021226580014br.gov.bcb.pix0136123e4567-e89b-42d3-a456-4266141740005204000053039865406100.00" +
      "5802BR5916Paykit Mock Loja6009Sao Paulo622905251KAKQ6YQ1W3M0G4GQYX8V4D2B63041D3A",
  },
};

if (kind === "bare") {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const body = JSON.stringify(PIX_CREATED);
      res.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      res.end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => announce({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (kind === "mock") {
  const entry = process.argv[3] ? pathToFileURL(process.argv[3]).href : "../dist/index.js";
  const { createMockServer } = await import(entry);
  const mock = await createMockServer({ autoAdvance: false });
  announce({ url: mock.url, auth: `Basic ${btoa(`${mock.account.publicKey}:${mock.account.secretKey}`)}` });
} else if (kind === "mock-seeded") {
  const { createMockServer } = await import("../dist/index.js");
  const mock = await createMockServer({ autoAdvance: false });
  const small = await seed(mock.engine, 10_000_000, 1_000);
  const large = await seed(mock.engine, 1_000_000_000, 100_000);
  announce({ url: mock.url, small, large });
} else {
  throw new Error(`unknown server kind ${kind}: bare, mock or mock-seeded`);
}
