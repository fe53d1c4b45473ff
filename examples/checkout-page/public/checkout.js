// The demo's checkout page: it sends the order to the merchant backend, which creates the payin with the
// Paykit keys, and mounts @paykit/browser's payment screen on the 201 answer. The screen draws the PIX QR
// code, the boleto line, the bank button or the card's 3DS challenge, and follows the payin at the
// backend's payment-status endpoint (createPaymentStatus) until it is final. The order is fulfilled by
// the backend's verified webhook, never because this page says so.

import { mountPayment } from "/vendor/@paykit/browser/checkout.js";
import { handlePendingThreeDS } from "/vendor/@paykit/browser/index.js";
import { formatPaymentError } from "/vendor/@paykit/contract/messages.js";

const $ = (id) => document.getElementById(id);
const LOCALE = document.documentElement.lang; // pt-BR: the screen's and the form's language
const SHOWN_KEY = "paykit-demo:payin"; // the payment on screen, to show again after a reload
const brl = (cents) => (cents / 100).toLocaleString(LOCALE, { style: "currency", currency: "BRL" });

let config = null;
let screen = null;

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw data; // { code, message, details }: what formatPaymentError reads
  return data;
}

// The backend's error answer in the shopper's words: one message, and one per field they can fix.
function showError(error) {
  const { message, fields } = formatPaymentError(error, { locale: LOCALE });
  $("pay-error").textContent = message;
  $("pay-error").hidden = false;
  for (const [path, text] of Object.entries(fields)) {
    const input = document.querySelector(`[data-field="${path}"]`);
    if (!input) continue;
    input.setAttribute("aria-invalid", "true");
    $(`${input.id}-error`).textContent = text;
  }
  document.querySelector("[aria-invalid=true]")?.focus();
}

function clearErrors() {
  $("pay-error").hidden = true;
  for (const input of document.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
    $(`${input.id}-error`).textContent = "";
  }
}

function showPayment(payin, threeDS) {
  screen?.unmount();
  const dev = $("simulate-payment");
  dev.hidden = !config.dev || !["PIX", "BOLETO"].includes(payin.paymentMethod);
  dev.dataset.payin = payin.id;
  if (payin.paymentMethod !== "CREDIT_CARD") sessionStorage.setItem(SHOWN_KEY, payin.id);
  if (payin.openFinanceRedirectUrl) {
    // The mock's bank page sends the shopper back here with ?payinId=…&status=… (docs/decisions/mock-server.md);
    // start() then shows this payment again.
    const back = encodeURIComponent(`${location.origin}/`);
    payin = { ...payin, openFinanceRedirectUrl: `${payin.openFinanceRedirectUrl}?returnUrl=${back}` };
  }
  screen = mountPayment($("payment"), {
    payin,
    statusUrl: config.statusUrl,
    locale: LOCALE,
    stylesheetUrl: "/vendor/@paykit/browser/checkout.css",
    ...(threeDS ? { threeDS } : {}),
    // An expired PIX or boleto offers "Gerar novo Pix" ("… boleto"): the cart's new payment of the same method,
    // which the screen then shows and follows in its place (docs/checkout.md, "When the PIX expires").
    onRenew: async () => {
      const { payin: next } = await api("/api/payins", { method: payin.paymentMethod });
      sessionStorage.setItem(SHOWN_KEY, next.id);
      dev.dataset.payin = next.id;
      return next;
    },
    onFinal: ({ status }) => {
      dev.hidden = true;
      sessionStorage.removeItem(SHOWN_KEY);
      document.body.dataset.final = status;
    },
    onError: (error) => console.warn(`payment screen: ${error.code ?? error.name}: ${error.message}`),
  });
}

function cardFromForm() {
  return {
    holderName: $("card-holder").value.trim(),
    number: $("card-number").value.replace(/\s+/g, ""),
    expirationMonth: $("card-month").value.trim(),
    expirationYear: $("card-year").value.trim(),
    cvv: $("card-cvv").value.trim(),
  };
}

async function pay(event) {
  event.preventDefault();
  clearErrors();
  const method = $("checkout-form").elements.method.value;
  const card = method === "CREDIT_CARD" ? cardFromForm() : undefined;
  const installments = Number($("card-installments").value);
  $("pay-button").disabled = true;
  try {
    const { payin, customer } = await api("/api/payins", {
      method,
      ...(card ? { card: { ...card, installments } } : {}),
    });
    // A card answered PENDING_3DS: the screen runs the bank's challenge with what the payin was sent.
    const data = card && { card, customer, amount: payin.amount, installments };
    showPayment(payin, data && { data, handlePendingThreeDS });
  } catch (error) {
    showError(error);
  } finally {
    $("pay-button").disabled = false;
  }
}

// Back from the bank, or a reload: the backend gives this session's payment again (404 for another's).
async function resume() {
  const payinId = new URLSearchParams(location.search).get("payinId") ?? sessionStorage.getItem(SHOWN_KEY);
  if (!payinId) return;
  try {
    const { payin } = await api(`/api/payins/${encodeURIComponent(payinId)}`);
    document.querySelector(`input[name=method][value=${payin.paymentMethod}]`).checked = true;
    showPayment(payin);
  } catch {
    sessionStorage.removeItem(SHOWN_KEY);
  }
}

async function start() {
  config = await api("/api/config");
  $("order-items").replaceChildren(
    ...config.items.map((item) => {
      const li = document.createElement("li");
      li.textContent = `${item.quantity} × ${item.title} — ${brl(item.unitPrice)}`;
      return li;
    }),
  );
  $("order-total").textContent = brl(config.amount);
  $("card-year").value = String(new Date().getFullYear() + 3);
  $("card-number").value = config.cards.approved;
  $("card-preset").addEventListener("change", (e) => {
    $("card-number").value = config.cards[e.target.value];
  });
  for (const radio of document.querySelectorAll("input[name=method]")) {
    radio.addEventListener("change", () => {
      $("card-fields").hidden = $("checkout-form").elements.method.value !== "CREDIT_CARD";
    });
  }
  $("checkout-form").addEventListener("submit", pay);
  $("simulate-payment").addEventListener("click", async (event) => {
    event.target.disabled = true;
    await api(`/api/dev/payins/${event.target.dataset.payin}/pay`, {}).catch(showError);
    event.target.disabled = false;
  });
  await resume();
  document.body.dataset.ready = "true";
}

start().catch((error) => showError(error));
