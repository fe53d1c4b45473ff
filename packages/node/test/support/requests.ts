import type { CreditCardPayinCreateParams, PayoutCreateParams, PixPayinCreateParams } from "@paykit/contract";
import { card, payinBase } from "./fixtures.js";

let sequence = 0;
/** A unique referenceId per call, so tests never collide on the mock's uniqueness rule. */
export function ref(prefix = "ref"): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${sequence}`;
}

/** A PIX payin request. */
export function pixPayin(overrides: Partial<Omit<PixPayinCreateParams, "paymentMethod">> = {}) {
  return { ...payinBase, referenceId: ref("order"), ...overrides, paymentMethod: "PIX" as const };
}

/** A CREDIT_CARD payin request with a card number (magic numbers pick the outcome). */
export function cardPayin(
  number = card.number,
  overrides: Partial<Omit<CreditCardPayinCreateParams, "paymentMethod">> = {},
): CreditCardPayinCreateParams & { paymentMethod: "CREDIT_CARD" } {
  return {
    ...payinBase,
    referenceId: ref("order"),
    card: { ...card, number },
    ...overrides,
    paymentMethod: "CREDIT_CARD",
  };
}

/** A payout to a key of the mock's seed directory. */
export function payout(overrides: Partial<PayoutCreateParams> = {}) {
  return {
    amount: 1_000,
    pixKey: "maria.santos@example.com",
    pixKeyType: "EMAIL" as const,
    referenceId: ref("withdraw"),
    ...overrides,
  };
}
