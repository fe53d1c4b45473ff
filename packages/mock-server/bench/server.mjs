// A server for bench/run.mjs, run in its own (pinned) process: `mock` serves the built mock with
// accounts of 1,000 and 100,000 payouts; `bare` parses the body and answers a fixed JSON.
import { createServer } from "node:http";

const kind = process.argv[2];

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
  server.listen(0, "127.0.0.1", () =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`),
  );
} else {
  const { createMockServer } = await import("../dist/index.js");
  const mock = await createMockServer({ autoAdvance: false });
  const small = await seed(mock.engine, 10_000_000, 1_000);
  const large = await seed(mock.engine, 1_000_000_000, 100_000);
  const auth = `Basic ${btoa(`${mock.account.publicKey}:${mock.account.secretKey}`)}`;
  process.stdout.write(`${JSON.stringify({ url: mock.url, auth, small, large })}\n`);
}
