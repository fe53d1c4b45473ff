import type * as contract from "@paykit/contract";
import type * as webhooks from "@paykit/webhooks";
import { describe, expectTypeOf, it } from "vitest";
import type * as node from "../../src/index.js";

describe("@paykit/node's types are the contract's and the webhooks package's", () => {
  it("the types a merchant writes for a payin request", () => {
    expectTypeOf<node.Customer>().toEqualTypeOf<contract.Customer>();
    expectTypeOf<node.Address>().toEqualTypeOf<contract.Address>();
    expectTypeOf<node.Card>().toEqualTypeOf<contract.Card>();
    expectTypeOf<node.CardData>().toEqualTypeOf<contract.CardData>();
    expectTypeOf<node.CardToken>().toEqualTypeOf<contract.CardToken>();
    expectTypeOf<node.Item>().toEqualTypeOf<contract.Item>();
    expectTypeOf<node.Antifraud>().toEqualTypeOf<contract.Antifraud>();
    expectTypeOf<node.OpenFinanceCustomer>().toEqualTypeOf<contract.OpenFinanceCustomer>();
    expectTypeOf<node.PixPayinCreateParams>().toEqualTypeOf<contract.PixPayinCreateParams>();
    expectTypeOf<node.BoletoPayinCreateParams>().toEqualTypeOf<contract.BoletoPayinCreateParams>();
    expectTypeOf<node.CreditCardPayinCreateParams>().toEqualTypeOf<contract.CreditCardPayinCreateParams>();
    expectTypeOf<node.OpenFinancePayinCreateParams>().toEqualTypeOf<contract.OpenFinancePayinCreateParams>();
    expectTypeOf<node.PixKeyType>().toEqualTypeOf<contract.PixKeyType>();
  });

  it("the known status and error-code unions, for exhaustive switches", () => {
    expectTypeOf<node.KnownPayinStatus>().toEqualTypeOf<contract.KnownPayinStatus>();
    expectTypeOf<node.KnownPayoutStatus>().toEqualTypeOf<contract.KnownPayoutStatus>();
    expectTypeOf<node.KnownErrorCode>().toEqualTypeOf<contract.KnownErrorCode>();
    expectTypeOf<node.PendingThreeDSPayin>().toEqualTypeOf<contract.PendingThreeDSPayin>();
  });

  it("what a webhook receiver names", () => {
    expectTypeOf<node.WebhookEvent>().toEqualTypeOf<webhooks.WebhookEvent>();
    expectTypeOf<node.WebhookDedupStore>().toEqualTypeOf<webhooks.WebhookDedupStore>();
    expectTypeOf<node.DedupOutcome<void>>().toEqualTypeOf<webhooks.DedupOutcome<void>>();
    expectTypeOf<node.WebhookOrderStore>().toEqualTypeOf<webhooks.WebhookOrderStore>();
    expectTypeOf<node.OrderOutcome<void>>().toEqualTypeOf<webhooks.OrderOutcome<void>>();
    expectTypeOf<node.OrderState>().toEqualTypeOf<webhooks.OrderState>();
    expectTypeOf<node.WebhookOrderGuardOptions>().toEqualTypeOf<webhooks.WebhookOrderGuardOptions>();
    expectTypeOf<node.PayinWebhookBody>().toEqualTypeOf<webhooks.PayinWebhookBody>();
    expectTypeOf<node.PayoutWebhookBody>().toEqualTypeOf<webhooks.PayoutWebhookBody>();
    expectTypeOf<node.WebhookVerificationErrorCode>().toEqualTypeOf<webhooks.WebhookVerificationErrorCode>();
    expectTypeOf<node.WebhookParseErrorCode>().toEqualTypeOf<webhooks.WebhookParseErrorCode>();
    expectTypeOf<typeof node.parseWebhookRequest>().toEqualTypeOf<typeof webhooks.parseWebhookRequest>();
    expectTypeOf<typeof node.verifyWebhook>().toEqualTypeOf<typeof webhooks.verifyWebhook>();
  });
});
