// app/api/webhooks/paykit/route.ts: a Next.js App Router route handler on the Node.js runtime.
// `request` is a web Request whose body nothing has read yet.
import { paykitReceiver } from "../../../../lib-paykit.js";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Receives Paykit's deliveries. */
export async function POST(request: Request): Promise<Response> {
  return new Response(null, { status: await paykitReceiver().fromRequest(request) });
}
