// A merchant's TypeScript file that uses every package's root entry point; type-checked against the
// installed tarballs under each moduleResolution the matrix lists, with TypeScript 5 and 7.
import { handlePendingThreeDS } from "@paykit/browser";
import { isValidCpf, type Payin } from "@paykit/contract";
import { createMockServer, type MockServer, samplePayin } from "@paykit/mock-server";
import { InvalidPixKeyError, Paykit } from "@paykit/node";
import { PaykitPayment, type PaymentStatusState, usePaymentStatus } from "@paykit/react";
import { parseWebhookRequest, type WebhookEvent, WebhookVerificationError } from "@paykit/webhooks";
import { createElement } from "react";

export async function consumeRoots(request: Request, secret: string): Promise<string> {
  const mock: MockServer = await createMockServer({ port: 0 });
  const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
  const payin: Payin = await paykit.payins.retrieve("pi_1");
  // The 201 answer is what the page's <PaykitPayment> takes.
  const created = await paykit.payins.create(samplePayin("PIX"));
  const screen = createElement(PaykitPayment, { payin: created, statusUrl: "/payment-status", locale: "en" });
  const follow: (statusUrl: string, id: string) => PaymentStatusState = usePaymentStatus;
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
    typeof screen,
    typeof follow,
    ...codes,
  ].join(" ");
}
