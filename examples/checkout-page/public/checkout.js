// The demo's checkout page: plain browser JavaScript, no framework. It talks only to the merchant
// backend (/api/*), which holds the Paykit keys; the payment's final status always comes from the
// backend's verified webhooks (server-sent events, with polling as the fallback).

const $ = (id) => document.getElementById(id);
const brl = (cents) => (cents / 100).toLocaleString("pt-BR", { style: "currency", currency: "BRL" });
const FINAL = new Set(["APPROVED", "REFUSED", "EXPIRED"]);
const OPEN_FINANCE_KEY = "paykit-demo:open-finance-payin";

let config = null;
let current = null; // { payinId, method, status }
let payoutPage = 1;
let pollTimer = null;

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const fields = (data.details ?? []).map((d) => `${d.path}: ${d.message}`).join("; ");
    throw new Error(
      `${data.code ?? response.status}: ${data.message ?? "request failed"}${fields ? ` (${fields})` : ""}`,
    );
  }
  return data;
}

function logEvent(text) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $("event-log").prepend(item);
}

function showStatus(status) {
  const badge = $("payin-status");
  badge.textContent = status;
  badge.className = `badge ${status}`;
  if (current) current.status = status;
  $("simulate-payment").disabled = status !== "PENDING";
  if (FINAL.has(status)) {
    $("payment-note").textContent =
      status === "APPROVED"
        ? "Paid: the backend received and verified the webhook."
        : `The payment ended ${status}.`;
    stopPolling();
  }
}

// Fallback when server-sent events are unavailable (a proxy that buffers them): ask the backend.
function startPolling() {
  stopPolling();
  pollTimer = setInterval(async () => {
    if (!current || FINAL.has(current.status)) return stopPolling();
    const order = await api(`/api/payins/${current.payinId}`).catch(() => null);
    if (order && order.status !== current.status) showStatus(order.status);
  }, 2000);
}
function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

function listenToBackend() {
  const events = new EventSource("/api/events");
  events.addEventListener("payin", (message) => {
    const { order, via } = JSON.parse(message.data);
    if (via === "webhook") logEvent(`payin ${order.payinId} ${order.paymentMethod} → ${order.status}`);
    if (current && order.payinId === current.payinId) showStatus(order.status);
  });
  events.addEventListener("payout", (message) => {
    const update = JSON.parse(message.data);
    logEvent(`payout ${update.payoutId} → ${update.status}`);
    loadPayouts();
  });
  events.addEventListener("error", () => {
    if (current && !FINAL.has(current.status)) startPolling();
  });
}

function selectedMethod() {
  return document.querySelector('input[name="method"]:checked').value;
}

function fillCard(preset) {
  $("card-number").value = config.cards[preset];
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

function resetPayment() {
  for (const id of ["pix-panel", "boleto-panel", "open-finance-panel"]) $(id).hidden = true;
  $("three-ds-container").replaceChildren();
  $("payment-note").textContent = "";
  $("pay-error").hidden = true;
}

function showPayment(payinId, method, status) {
  current = { payinId, method, status };
  $("payment").hidden = false;
  $("payin-id").textContent = payinId;
  showStatus(status);
  if (!FINAL.has(status)) startPolling();
}

async function runThreeDS(payin, card, customer, installments) {
  $("payment-note").textContent = "Your bank asks you to confirm this purchase…";
  try {
    const result = await window.Paykit.handlePendingThreeDS(
      payin,
      { card, customer, amount: payin.amount, installments },
      { container: $("three-ds-container") },
    );
    // The customer's choice is not the payment's status: that comes from the backend's webhook.
    $("payment-note").textContent =
      result.status === "CANCELED"
        ? "You closed the confirmation; the payment is still waiting for it."
        : `3DS ${result.status.toLowerCase()}; waiting for the payment's confirmation…`;
  } catch (error) {
    $("payment-note").textContent = `3DS could not run (${error.code ?? error.name}): ${error.message}`;
  }
}

async function pay() {
  resetPayment();
  const method = selectedMethod();
  const card = method === "CREDIT_CARD" ? cardFromForm() : undefined;
  const installments = Number($("card-installments").value);
  $("pay-button").disabled = true;
  try {
    const { payin, qrImage, customer } = await api("/api/payins", {
      method,
      ...(card ? { card: { ...card, installments } } : {}),
    });
    showPayment(payin.id, method, payin.status);
    if (method === "PIX") {
      $("pix-panel").hidden = false;
      $("pix-qr").src = qrImage;
      $("pix-code").value = payin.pix.qrcode;
      $("simulate-payment").hidden = !config.dev;
    } else if (method === "BOLETO") {
      $("boleto-panel").hidden = false;
      $("boleto-line").value = payin.boleto.barcode;
      $("boleto-pdf").href = payin.boleto.url;
    } else if (method === "OPEN_FINANCE") {
      $("open-finance-panel").hidden = false;
      $("open-finance-link").href = payin.openFinanceRedirectUrl;
      sessionStorage.setItem(OPEN_FINANCE_KEY, payin.id);
    } else if (payin.status === "PENDING_3DS") {
      await runThreeDS(payin, card, customer, installments);
    }
  } catch (error) {
    $("pay-error").textContent = error.message;
    $("pay-error").hidden = false;
  } finally {
    $("pay-button").disabled = false;
  }
}

// Back from the bank: the page was left for the open finance authorization; show that payment again.
async function resumeOpenFinance() {
  const payinId =
    new URLSearchParams(location.search).get("payin") ?? sessionStorage.getItem(OPEN_FINANCE_KEY);
  if (!payinId) return;
  const order = await api(`/api/payins/${payinId}`).catch(() => null);
  if (!order) return;
  document.querySelector('input[value="OPEN_FINANCE"]').checked = true;
  showPayment(order.payinId, order.paymentMethod, order.status);
  $("payment-note").textContent = "Back from your bank.";
  if (FINAL.has(order.status)) sessionStorage.removeItem(OPEN_FINANCE_KEY);
}

// Reais typed by a person ("50", "50,5", "1234,56") to integer cents, without floating point.
function reaisToCents(text) {
  const match = /^(\d+)(?:,(\d{1,2}))?$/.exec(text.trim());
  if (!match) throw new Error("Amount must look like 50,00");
  return Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
}

async function sendPayout(event) {
  event.preventDefault();
  const result = $("payout-result");
  try {
    const payout = await api("/api/payouts", {
      amount: reaisToCents($("payout-amount").value),
      pixKeyType: $("payout-key-type").value,
      pixKey: $("payout-key").value.trim(),
      referenceId: $("payout-reference").value.trim() || undefined,
    });
    result.textContent = `Payout ${payout.id} of ${brl(payout.amount)} created: ${payout.status}`;
    result.className = "";
    payoutPage = 1;
    await loadPayouts();
  } catch (error) {
    result.textContent = error.message;
    result.className = "error";
  }
}

function dayBoundary(date, end) {
  return date ? new Date(`${date}T${end ? "23:59:59.999" : "00:00:00.000"}`).toISOString() : "";
}

async function loadPayouts() {
  const query = new URLSearchParams({ page: String(payoutPage), limit: $("filter-limit").value });
  const filters = {
    status: $("filter-status").value,
    startDate: dayBoundary($("filter-start").value, false),
    endDate: dayBoundary($("filter-end").value, true),
    referenceId: $("filter-reference").value.trim(),
  };
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  try {
    const { data, meta } = await api(`/api/payouts?${query}`);
    const rows = data.map((p) => {
      const row = document.createElement("tr");
      const cells = [
        new Date(p.createdAt).toLocaleString(),
        p.id,
        p.referenceId,
        `${p.pixKeyType} ${p.pixKey}`,
        brl(p.amount),
        p.feeAmount === null ? "—" : brl(p.feeAmount),
        p.status,
      ];
      cells.forEach((text, i) => {
        const cell = document.createElement("td");
        cell.textContent = text;
        if (i === 4 || i === 5) cell.className = "num";
        if (i === 6) {
          const badge = document.createElement("span");
          badge.className = `badge ${p.status}`;
          badge.textContent = text;
          cell.replaceChildren(badge);
        }
        row.append(cell);
      });
      return row;
    });
    $("payout-rows").replaceChildren(...rows);
    $("page-info").textContent =
      meta.total === 0 ? "no payouts" : `page ${meta.page} of ${meta.totalPages} · ${meta.total} payouts`;
    $("page-prev").disabled = meta.page <= 1;
    $("page-next").disabled = meta.page >= meta.totalPages;
  } catch (error) {
    $("page-info").textContent = error.message;
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
  fillCard("approved");
  $("payout-key").value = config.payoutKey.pixKey;
  $("payout-key-type").value = config.payoutKey.pixKeyType;

  for (const radio of document.querySelectorAll('input[name="method"]')) {
    radio.addEventListener("change", () => {
      $("card-form").hidden = selectedMethod() !== "CREDIT_CARD";
    });
  }
  $("card-preset").addEventListener("change", (e) => fillCard(e.target.value));
  $("pay-button").addEventListener("click", pay);
  $("pix-copy").addEventListener("click", () => navigator.clipboard?.writeText($("pix-code").value));
  $("simulate-payment").addEventListener("click", async () => {
    $("simulate-payment").disabled = true;
    await api(`/api/dev/payins/${current.payinId}/pay`, {}).catch((error) => {
      $("payment-note").textContent = error.message;
    });
  });
  $("payout-form").addEventListener("submit", sendPayout);
  $("payout-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    payoutPage = 1;
    loadPayouts();
  });
  $("page-prev").addEventListener("click", () => {
    payoutPage -= 1;
    loadPayouts();
  });
  $("page-next").addEventListener("click", () => {
    payoutPage += 1;
    loadPayouts();
  });

  listenToBackend();
  await Promise.all([loadPayouts(), resumeOpenFinance()]);
  document.body.dataset.ready = "true";
}

start().catch((error) => {
  $("pay-error").textContent = `The checkout could not start: ${error.message}`;
  $("pay-error").hidden = false;
});
