// A bare node:http server answering POST /payout with one fixed, valid payout record and every other
// request with one fixed, valid payin record. Runs in its own process so that its CPU time does not
// count against either side of the comparison.
import { createServer } from "node:http";

const body = JSON.stringify({
  id: "pi_01JD0000000000000000000000",
  externalId: "acq_01JD0000000000000000000000",
  referenceId: "order-1",
  status: "APPROVED",
  amount: 10000,
  currency: "BRL",
  paymentMethod: "PIX",
  installments: null,
  customer: {
    name: "Maria Silva",
    document: "52998224725",
    email: "maria@example.com",
    phone: "5511987654321",
    address: { street: "Rua A", number: "10", zipCode: "01310100", city: "São Paulo", state: "SP" },
  },
  items: [{ title: "Plan", quantity: 1, unitPrice: 10000, description: null }],
  pixCopyAndPaste:
    "00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/abc5204000053039865406100.005802BR5913PAYKIT MOCK6009SAO PAULO62070503***6304ABCD",
  boletoBarcode: null,
  boletoUrl: null,
  netAmount: 9901,
  reservedAmount: null,
  createdAt: "2026-11-22T00:00:00.000Z",
  updatedAt: "2026-11-22T00:00:01.000Z",
});

const payout = JSON.stringify({
  id: "po_01JD0000000000000000000000",
  externalId: null,
  status: "PENDING",
  amount: 5000,
  currency: "BRL",
  pixKey: "maria@example.com",
  pixKeyType: "EMAIL",
  referenceId: "withdraw-42",
  beneficiaryName: "Maria Silva",
  beneficiaryDocument: "52998224725",
  feeAmount: null,
  netAmount: null,
  failureCode: null,
  createdAt: "2026-11-22T00:00:00.000Z",
  updatedAt: "2026-11-22T00:00:00.000Z",
});

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const created = req.method === "POST" && req.url?.endsWith("/payout");
    const answer = created ? payout : body;
    res.writeHead(created ? 201 : 200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(answer),
    });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
