// The browser side of `context=checkout-page`: what a checkout page's script has when it calls
// @paykit/browser (the card the customer typed, the order body, the page's UI callbacks). The docs test
// bundles a block with this module in place of contexts.ts and runs it in Chromium; the UI callbacks
// record their calls in `window.docsCalls`, which the test reads. `payin` is the shop's real PIX payin
// (html.ts puts its 201 answer in the page).
const calls: Array<{ name: string; args: unknown[] }> = [];
(window as unknown as { docsCalls: typeof calls }).docsCalls = calls;

/** The card the mock asks a 3DS challenge for. */
const card = {
  holderName: "MARIA DA SILVA",
  number: "4000000000003220",
  expirationMonth: "12",
  expirationYear: "2099",
  cvv: "123",
  installments: 1,
};
const customer = {
  name: "Maria da Silva",
  document: "12345678909",
  email: "maria.silva@example.com",
  phone: "5511987654321",
  address: {
    street: "Avenida Paulista",
    number: "1000",
    zipCode: "01310100",
    city: "São Paulo",
    state: "SP",
  },
};

/** The shop's real PIX payin (its 201 answer), which the test's page carries as JSON. */
function shopPayin() {
  const json = document.getElementById("docs-payin")?.textContent;
  if (!json) throw new Error("the checkout page carries no #docs-payin");
  return JSON.parse(json) as unknown;
}

async function checkoutPage() {
  const ui =
    (name: string) =>
    (...args: unknown[]) =>
      void calls.push({ name, args });
  const order = { amount: 10_000, card, customer };
  return {
    order,
    body: JSON.stringify(order),
    card,
    customer,
    installments: 1,
    showRetryButton: ui("showRetryButton"),
    showTryAgain: ui("showTryAgain"),
    showWaitingForConfirmation: ui("showWaitingForConfirmation"),
    showError: ui("showError"),
    showProgress: ui("showProgress"),
    payin: shopPayin(),
  };
}

/** The browser's harnesses (only checkout-page runs in a page). */
export const contexts = { "checkout-page": checkoutPage };
