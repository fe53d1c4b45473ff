// The same route handler on the Edge runtime: verification uses WebCrypto only.
import { paykitReceiver } from "../../../../lib-paykit.js";

export const runtime = "edge";

/** Receives Paykit's deliveries. */
export async function POST(request: Request): Promise<Response> {
  return new Response(null, { status: await paykitReceiver().fromRequest(request) });
}
