// GET /api/payment-status?id=pi_…: the shopper's page follows its payin here, as JSON or as
// server-sent events (createPaymentStatus, docs/checkout.md).
import { shop } from "../../../lib/shop";

export const runtime = "nodejs"; // a stream needs the Node.js runtime's long-lived response
export const dynamic = "force-dynamic"; // a status is never prerendered or cached

export function GET(request: Request): Promise<Response> {
  return shop().paymentStatus.handler(request);
}
