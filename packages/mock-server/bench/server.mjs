// A server for bench/run.mjs, run in its own process pinned to core 0. Kinds:
//   bare         parses the body and answers a fixed JSON (the node:http baseline)
//   mock         a fresh createMockServer(), as a user's test suite starts it (the POST /payin run)
//   mock-seeded  a mock with accounts of 1,000 and 100,000 payouts (the GET /payout runs); seeded in
//                its own process, so the POST run never pays for this heap's garbage collection
import { createServer } from "node:http";

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

if (kind === "bare") {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const body = JSON.stringify({ id: "pi_01J00000000000000000000000", status: "PENDING", amount: 10000 });
      res.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      res.end(body);
    });
  });
  server.listen(0, "127.0.0.1", () => announce({ url: `http://127.0.0.1:${server.address().port}` }));
} else if (kind === "mock") {
  const { createMockServer } = await import("../dist/index.js");
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
