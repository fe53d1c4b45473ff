// The same merchant's file for the subpath entry points (the ones `moduleResolution: node10` cannot
// see without `typesVersions`).
import { isValidCpf } from "@paykit/contract/br";
import { keyMode, WEBHOOK_HEADERS } from "@paykit/contract/rules";
import { createPaykitMock, type PaykitMock } from "@paykit/mock-server/msw";
import { WebhookVerificationError } from "@paykit/webhooks/errors";
import { type PostgresDedupClient, PostgresDedupStore } from "@paykit/webhooks/postgres";
import { type RedisDedupClient, RedisDedupStore } from "@paykit/webhooks/redis";
import { type SignedWebhookHeaders, signWebhook } from "@paykit/webhooks/testing";

export async function consumeSubpaths(redis: RedisDedupClient, pg: PostgresDedupClient): Promise<string> {
  const headers: SignedWebhookHeaders = await signWebhook("{}", { secret: "whsec_x" });
  const stores = [new RedisDedupStore(redis), new PostgresDedupStore(pg)];
  const mock: PaykitMock = createPaykitMock({ baseUrl: "https://api.paykit.test/v1" });
  const lean = [isValidCpf("52998224725"), keyMode("pk_test_x", "publicKey"), WEBHOOK_HEADERS.id];
  return [headers["webhook-id"], stores.length, typeof mock, typeof WebhookVerificationError, ...lean].join(
    " ",
  );
}
