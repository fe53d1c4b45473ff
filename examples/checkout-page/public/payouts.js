// The merchant's payout panel of the demo page: send a PIX payout and list them with the service's
// filters and pager, through the backend's /api/payouts (which holds the keys). Not part of the checkout;
// its statuses move by webhook, so "Filter and refresh" reads the list again.

const $ = (id) => document.getElementById(id);
const brl = (cents) => (cents / 100).toLocaleString("pt-BR", { style: "currency", currency: "BRL" });

let payoutPage = 1;

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
  const { payoutKey } = await api("/api/config");
  $("payout-key").value = payoutKey.pixKey;
  $("payout-key-type").value = payoutKey.pixKeyType;
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
  await loadPayouts();
  document.body.dataset.payoutsReady = "true";
}

start().catch((error) => {
  $("page-info").textContent = `The payout panel could not start: ${error.message}`;
});
