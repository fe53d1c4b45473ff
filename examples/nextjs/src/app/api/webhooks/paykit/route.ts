// POST /api/webhooks/paykit: Paykit's deliveries. A route handler's `request` is a web Request whose
// body nothing has read yet: parseWebhookRequest verifies the signature over those exact bytes.
import { parseWebhookRequest } from "@paykit/node";
import { receiveWebhook } from "../../../../lib/shop";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const secret = process.env.PAYKIT_WEBHOOK_SECRET; // unset: SECRET_MISSING, answered 500
  return new Response(null, { status: await receiveWebhook(() => parseWebhookRequest(request, { secret })) });
}
