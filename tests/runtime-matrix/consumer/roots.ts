// A merchant's TypeScript file that uses every package's root entry point; type-checked against the
// installed tarballs under each moduleResolution the matrix lists, with TypeScript 5 and 7.
import { handlePendingThreeDS } from "@paykit/browser";
import { isValidCpf, type Payin } from "@paykit/contract";
import { createMockServer, type MockServer } from "@paykit/mock-server";
import { InvalidPixKeyError, Paykit } from "@paykit/node";
import { parseWebhookRequest, type WebhookEvent, WebhookVerificationError } from "@paykit/webhooks";

export async function consumeRoots(request: Request, secret: string): Promise<string> {
  const mock: MockServer = await createMockServer({ port: 0 });
  const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
  const payin: Payin = await paykit.payins.retrieve("pi_1");
  const event: WebhookEvent = await parseWebhookRequest(request, { secret });
  const codes: string[] = [];
  const error: unknown = event.kind === "payin" ? undefined : new Error("payout");
  if (error instanceof InvalidPixKeyError) codes.push(error.code);
  if (error instanceof WebhookVerificationError) codes.push(error.code);
  await mock.close();
  return [
    payin.id,
    event.id,
    String(isValidCpf("529.982.247-25")),
    typeof handlePendingThreeDS,
    ...codes,
  ].join(" ");
}
