// A merchant's TypeScript file that touches every published entry point; type-checked against the
// installed tarballs under each moduleResolution the matrix lists, with TypeScript 5 and 7.

import { handlePendingThreeDS } from "@paykit/browser";
import { isValidCpf, type Payin } from "@paykit/contract";
import { createMockServer, type MockServer } from "@paykit/mock-server";
import * as mockMsw from "@paykit/mock-server/msw";
import { InvalidPixKeyError, Paykit } from "@paykit/node";
import { parseWebhookRequest, type WebhookEvent, WebhookVerificationError } from "@paykit/webhooks";
import * as postgresStore from "@paykit/webhooks/postgres";
import * as redisStore from "@paykit/webhooks/redis";
import { signWebhook } from "@paykit/webhooks/testing";

export async function consume(request: Request, secret: string): Promise<string> {
  const mock: MockServer = await createMockServer({ port: 0 });
  const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
  const payin: Payin = await paykit.payins.retrieve("pi_1");
  const event: WebhookEvent = await parseWebhookRequest(request, { secret });
  const headers = await signWebhook("{}", { secret });
  const error: unknown = undefined;
  const codes: string[] = [];
  if (error instanceof InvalidPixKeyError) codes.push(error.code);
  if (error instanceof WebhookVerificationError) codes.push(error.code);
  await mock.close();
  return [
    payin.id,
    event.id,
    headers["webhook-id"],
    String(isValidCpf("529.982.247-25")),
    typeof handlePendingThreeDS,
    Object.keys(mockMsw).length,
    Object.keys(redisStore).length,
    Object.keys(postgresStore).length,
    ...codes,
  ].join(" ");
}
