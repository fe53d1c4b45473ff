import { createEngine } from "../dist/engine/index.js";
const engine = createEngine({ autoAdvance: false });
const auth = `Basic ${btoa(`${engine.account.publicKey}:${engine.account.secretKey}`)}`;
const body = JSON.stringify({ paymentMethod: "PIX", amount: 10000, referenceId: "order-1", isPhysicalProduct: false, payerIp: "200.100.50.25",
  customer: { name: "Maria da Silva", document: "12345678909", email: "maria@example.com", phone: "5511987654321", address: { street: "Rua Augusta", number: "100", zipCode: "01305000", city: "São Paulo", state: "SP" } },
  items: [{ title: "Plano mensal", quantity: 1, unitPrice: 10000 }] });
const req = { method: "POST", path: "/payin", query: "", base: "http://127.0.0.1:4555", header: (n) => n === "authorization" ? auth : n === "content-type" ? "application/json" : undefined, body };
for (let i = 0; i < 20000; i++) await engine.dispatch(req);
const n = 300000; const t = performance.now();
for (let i = 0; i < n; i++) await engine.dispatch(req);
console.log(((performance.now() - t) * 1000 / n).toFixed(2), "µs per POST /payin dispatch");
engine.close();
