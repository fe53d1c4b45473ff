import type { Customer, Item } from "@paykit/contract";
import { isPaykitApiError, type Paykit } from "@paykit/node";

/** A shop's order, as the merchant's own code knows it. */
export interface Order {
  id: string;
  customer: Customer;
  items: Item[];
  /** The customer's IPv4, from the request that placed the order. */
  customerIp: string;
}

/** What the checkout shows the customer for a PIX payment. */
export interface PixCheckout {
  payinId: string;
  /** The BR Code, for the QR image and the copy-and-paste field. */
  brCode: string;
  /** The amount charged, in cents. */
  amount: number;
}

/** The order total in cents: integer arithmetic only, never floating-point reais. */
export function orderTotal(items: readonly Item[]): number {
  return items.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0);
}

/**
 * The merchant's checkout code under test: charges an order by PIX. The order id is the payin's
 * `referenceId`, so the payment can be reconciled with the order.
 */
export async function startPixCheckout(
  paykit: Paykit,
  order: Order,
  webhookUrl: string,
): Promise<PixCheckout> {
  const payin = await paykit.payins.create({
    paymentMethod: "PIX",
    amount: orderTotal(order.items),
    referenceId: order.id,
    isPhysicalProduct: false,
    payerIp: order.customerIp,
    customer: order.customer,
    items: order.items,
    webhookUrl,
  });
  return { payinId: payin.id, brCode: payin.pix.qrcode, amount: payin.amount };
}

/** What the checkout tells a customer whose card payment did not go through. */
export type CardOutcome =
  | { paid: true; payinId: string }
  | { paid: false; reason: "declined" | "try-another-card" | "try-again-later"; message: string };

/** Charges an order by card and turns Paykit's answer into what the checkout shows. */
export async function payByCard(
  paykit: Paykit,
  order: Order,
  card: { holderName: string; number: string; expirationMonth: string; expirationYear: string; cvv: string },
): Promise<CardOutcome> {
  try {
    const payin = await paykit.payins.create({
      paymentMethod: "CREDIT_CARD",
      amount: orderTotal(order.items),
      referenceId: order.id,
      isPhysicalProduct: true,
      payerIp: order.customerIp,
      customer: order.customer,
      items: order.items,
      card: { ...card, installments: 1 },
    });
    if (payin.status === "APPROVED") return { paid: true, payinId: payin.id };
    return { paid: false, reason: "declined", message: `The card was ${payin.status.toLowerCase()}.` };
  } catch (error) {
    // Branch on the stable `code`, never on message text.
    if (isPaykitApiError(error)) {
      if (
        error.code === "PAYER_LIMIT_REJECTED" ||
        error.code === "INVALID_CVV" ||
        error.code === "REJECTED_BY_RISK"
      )
        return { paid: false, reason: "try-another-card", message: error.code };
      if (error.code === "PROVIDER_ERROR")
        return { paid: false, reason: "try-again-later", message: error.code };
    }
    throw error;
  }
}

/** Whether the order's payin is paid, asking the API (the fallback when a webhook is late). */
export async function isOrderPaid(paykit: Paykit, payinId: string): Promise<boolean> {
  const payin = await paykit.payins.retrieve(payinId);
  return payin.status === "APPROVED";
}
