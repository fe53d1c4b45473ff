// POST /api/orders: the shopper orders; the shop creates the PIX payin and answers its 201 body, which
// the page hands to <PaykitPayment>. The order is saved with the shopper's session (the `sid` cookie),
// which is what the status route's `authorize` checks.
import { randomUUID } from "node:crypto";
import { isPaykitApiError } from "@paykit/node";
import { sessionOf, shop } from "../../../lib/shop";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const { paykit, orders } = shop();
  const sessionId = sessionOf(request) ?? randomUUID();
  const referenceId = `order-${randomUUID()}`;
  // Where Paykit posts this payin's status changes: this shop's own webhook route.
  const webhookUrl = new URL("/api/webhooks/paykit", process.env.SHOP_PUBLIC_URL ?? request.url).href;
  try {
    const payin = await paykit.payins.create({
      paymentMethod: "PIX",
      amount: 14990, // R$ 149,90: integer cents
      referenceId,
      isPhysicalProduct: false,
      payerIp: "203.0.113.7", // the shopper's address, as your proxy reports it
      webhookUrl,
      items: [{ title: "Plano anual", quantity: 1, unitPrice: 14990 }],
      customer: {
        name: "Maria Silva",
        document: "52998224725",
        email: "maria.silva@example.com",
        phone: "5511987654321",
        address: {
          street: "Avenida Paulista",
          number: "1000",
          zipCode: "01310100",
          city: "São Paulo",
          state: "SP",
        },
      },
    });
    orders.set(payin.id, { sessionId, payinId: payin.id, referenceId });
    const headers = new Headers({ "content-type": "application/json" });
    headers.append("set-cookie", `sid=${sessionId}; Path=/; HttpOnly; SameSite=Lax`);
    return new Response(JSON.stringify(payin), { status: 201, headers });
  } catch (error) {
    if (isPaykitApiError(error)) return Response.json({ code: error.code }, { status: 502 });
    throw error;
  }
}
