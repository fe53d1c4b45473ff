// The harnesses a block names with `context=NAME`. Each provides the free names a fragment of a page
// uses (`paykit`, `order`, `request`, …), built against the running mock: a block never runs on
// made-up values. A block's own top-level declarations win over the context's names.
import type { PayoutCreateParams, PixPayinCreateParams } from "@paykit/contract";
import { SAMPLE_CARD, SAMPLE_CUSTOMER, samplePayin, samplePayout } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { verifyWebhook, type WebhookEvent } from "@paykit/webhooks";
import { type Delivery, world } from "./world.js";

/** What the shop's order gives a payin request: every shared field, without the method. */
export type Order = Omit<PixPayinCreateParams, "paymentMethod">;

function client(): Paykit {
  const { keys, mock, secret } = world();
  return new Paykit({ ...keys, baseUrl: mock.url, webhookSecret: secret });
}

function order(): Order {
  const { paymentMethod: _method, ...rest } = samplePayin("PIX", { webhookUrl: world().webhookUrl });
  return rest;
}

/** Makes the mock send one real signed delivery (a PIX payin paid) and returns it as received. */
export async function signedDelivery(paykit: Paykit): Promise<Delivery> {
  const { mock, deliveries } = world();
  const before = deliveries.length;
  const payin = await paykit.payins.create({ paymentMethod: "PIX", ...order() });
  await mock.control.payPayin(payin.id);
  const until = Date.now() + 5_000;
  while (deliveries.length === before) {
    if (Date.now() > until) throw new Error("the mock sent no webhook within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return deliveries[before] as Delivery;
}

/** Records what a block's stand-in business functions were called with. */
export const calls: Array<{ name: string; args: unknown[] }> = [];
function recorder<Args extends unknown[]>(name: string) {
  return async (...args: Args): Promise<void> => {
    calls.push({ name, args });
  };
}

async function merchant() {
  const paykit = client();
  const pixPayin = samplePayin("PIX");
  const payin = await paykit.payins.create({ paymentMethod: "PIX", ...order() });
  return {
    mock: world().mock,
    paykit,
    /** The shared fields of a payin request (customer, items, amount, referenceId, …). */
    order: order(),
    /** A PIX payin request of the sample data. */
    pixPayin,
    /** A PIX payin created on the mock. */
    payin,
    webhookUrl: world().webhookUrl,
    payoutRequest: samplePayout() as PayoutCreateParams,
    reconcile: (payout: { id: string; status: string }) =>
      void calls.push({ name: "reconcile", args: [payout] }),
    askToTopUp: recorder("askToTopUp"),
    scheduleForMorning: recorder<[PayoutCreateParams]>("scheduleForMorning"),
    showFieldErrors: recorder<[ReadonlyArray<{ path: string; message: string }>]>("showFieldErrors"),
    fulfil: async (event: WebhookEvent) => {
      calls.push({ name: "fulfil", args: [event.id] });
      return event.id;
    },
    shipOrder: recorder<[string]>("shipOrder"),
  };
}

async function webhookHandler() {
  const base = await merchant();
  const { rawBody, headers } = await signedDelivery(base.paykit);
  const { secret } = world();
  const headerInit = Object.entries(headers).flatMap(([name, value]) =>
    typeof value === "string" ? [[name, value] as [string, string]] : [],
  );
  return {
    ...base,
    /** The delivery as a web-standard Request (Hono, Next.js route handlers, Bun, workers). */
    request: new Request(base.webhookUrl, {
      method: "POST",
      headers: headerInit,
      body: new TextDecoder().decode(rawBody),
    }),
    /** The exact bytes of a real signed delivery. */
    rawBody,
    /** Its headers, as Node's IncomingHttpHeaders. */
    headers,
    /** The account's webhook secret (`whsec_…`). */
    secret,
    /** A verified event of that delivery. */
    event: await verifyWebhook(rawBody, headers, secret),
    /** Workers-style bindings. */
    env: { PAYKIT_WEBHOOK_SECRET: secret },
    /** A payin webhook body of the contract's shape. */
    payinBody: JSON.parse(new TextDecoder().decode(rawBody)) as unknown,
  };
}

/** A checkout page's values (browser blocks; they are type-checked here and run in Chromium elsewhere). */
async function checkoutPage() {
  const { paymentMethod: _method, ...order } = samplePayin("CREDIT_CARD");
  const { paymentMethod: _pix, ...pixOrder } = samplePayin("PIX", { webhookUrl: world().webhookUrl });
  const ui =
    (name: string) =>
    (...args: unknown[]) =>
      void calls.push({ name, args });
  return {
    order,
    body: JSON.stringify(order),
    card: SAMPLE_CARD,
    customer: SAMPLE_CUSTOMER,
    installments: 1,
    showRetryButton: ui("showRetryButton"),
    showTryAgain: ui("showTryAgain"),
    showWaitingForConfirmation: ui("showWaitingForConfirmation"),
    showError: ui("showError"),
    showProgress: ui("showProgress"),
    /** A PIX payin's 201 answer, as the backend passed it to the page (the shop's, in Chromium). */
    payin: await client().payins.create({ paymentMethod: "PIX", ...pixOrder }),
  };
}

/** Every harness a block may name, by name. */
export const contexts = {
  merchant,
  "webhook-handler": webhookHandler,
  "checkout-page": checkoutPage,
};

/** The names a context provides (the generator destructures these). */
export type ContextName = keyof typeof contexts;

type Provided<K extends ContextName> = keyof Awaited<ReturnType<(typeof contexts)[K]>>;

/** The names each context provides, checked against what it returns. */
export const CONTEXT_NAMES: { [K in ContextName]: ReadonlyArray<Provided<K>> } = {
  merchant: [
    "mock",
    "paykit",
    "order",
    "pixPayin",
    "payin",
    "webhookUrl",
    "payoutRequest",
    "reconcile",
    "askToTopUp",
    "scheduleForMorning",
    "showFieldErrors",
    "fulfil",
    "shipOrder",
  ],
  "webhook-handler": [
    "mock",
    "paykit",
    "order",
    "pixPayin",
    "payin",
    "webhookUrl",
    "payoutRequest",
    "reconcile",
    "askToTopUp",
    "scheduleForMorning",
    "showFieldErrors",
    "fulfil",
    "shipOrder",
    "request",
    "rawBody",
    "headers",
    "secret",
    "event",
    "env",
    "payinBody",
  ],
  "checkout-page": [
    "order",
    "body",
    "card",
    "customer",
    "installments",
    "showRetryButton",
    "showTryAgain",
    "showWaitingForConfirmation",
    "showError",
    "showProgress",
    "payin",
  ],
};
