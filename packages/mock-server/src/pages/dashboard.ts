/**
 * The mock's merchant dashboard at `/_mock/dashboard`: a self-contained page whose inline script reads
 * and drives the JSON control API under `/_mock` (docs/decisions/mock-control-api.md).
 * Everything it shows comes from these calls, so the page holds no state of its own:
 *
 * | call | for |
 * |---|---|
 * | `GET /_mock/accounts` → `{ data: AccountView[], nextCursor }` | accounts, settings and balances |
 * | `GET /_mock/account` → `AccountView` | signed in with an account's keys: that account |
 * | `GET /_mock/payins?accountId=` → `{ data: payin[], nextCursor }` (with `accountId`, `statusHistory`) | payins |
 * | `GET /_mock/payouts?accountId=` → `{ data: payout[], nextCursor }` (with `accountId`, `statusHistory`) | payouts |
 * | `POST /_mock/payouts/{id}/approve`, `/reject` | the manual approval (AWAITING_APPROVAL) |
 * | `GET /_mock/webhooks?accountId=` → `{ data: delivery[], nextCursor }` | the delivery log with every attempt |
 * | `POST /_mock/webhooks/{deliveryId}/redeliver` | Redeliver |
 * | `GET /_mock/clock`, `POST /_mock/clock` `{ advanceMs }` | the clock |
 *
 * With `--admin-token`, the page asks for the token once and sends it as `Authorization: Bearer`. On a
 * shared sandbox (`--shared`) an account's keys (`pk_test_…:sk_test_…`) may be given instead: they go
 * as `Authorization: Basic`, and the page shows that account alone, with its own clock
 * (`/_mock/accounts/{id}/clock`) and its own webhook flush (`?accountId=`).
 */

// The page script is plain browser JavaScript (no build step; no template literals or backslashes, so
// it lives in this TypeScript string untouched). Every value from the API is written with textContent, never HTML.
const SCRIPT = `
"use strict";
var state = { account: "", self: "", token: sessionStorage.getItem("paykit-mock-credentials") || "", timer: null, locked: false };
// An account's own keys (a shared sandbox) rather than the admin token.
var KEYS = /^(pk_test_[A-Za-z0-9_]+):(sk_test_[A-Za-z0-9_]+)$/;
var FINAL_OK = { APPROVED: 1, COMPLETED: 1, delivered: 1 };
var FINAL_BAD = { REFUSED: 1, EXPIRED: 1, FAILED: 1, CANCELED: 1, REFUNDED: 1, failed: 1 };

function $(id) { return document.getElementById(id); }
function brl(cents) {
  if (typeof cents !== "number") return "—";
  return (cents / 100).toLocaleString("pt-BR", { style: "currency", currency: "BRL" });
}
function time(iso) { return iso ? new Date(iso).toLocaleString() : "—"; }
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  for (var name in attrs || {}) {
    if (name === "text") node.textContent = attrs[name];
    else if (name === "onclick") node.addEventListener("click", attrs[name]);
    else node.setAttribute(name, attrs[name]);
  }
  (children || []).forEach(function (child) { if (child) node.append(child); });
  return node;
}
function badge(status) {
  var kind = FINAL_OK[status] ? "ok" : FINAL_BAD[status] ? "bad" : "wait";
  return el("span", { class: "badge " + kind, text: String(status) });
}
function history(list) {
  if (!Array.isArray(list) || list.length === 0) return el("span", { class: "muted", text: "—" });
  return el("ol", { class: "history" }, list.map(function (h) {
    return el("li", { text: h.status + " · " + time(h.at) });
  }));
}

function notice(text, isError) {
  var box = $("notice");
  box.textContent = text;
  box.className = isError ? "notice error" : "notice";
  box.hidden = !text;
}

function api(method, path, body) {
  var headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  var keys = KEYS.exec(state.token);
  if (keys) headers.authorization = "Basic " + btoa(keys[1] + ":" + keys[2]);
  else if (state.token) headers.authorization = "Bearer " + state.token;
  // Relative to the page (/_mock/dashboard), so a mock served under a path prefix works too.
  return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
    .then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = { message: text }; }
        if (response.status === 401) {
          // Until a token is given, automatic refreshes would only collect more 401s.
          state.locked = true;
          $("token-form").hidden = false;
        }
        if (!response.ok) {
          var error = new Error((data && data.code ? data.code + ": " : "") + ((data && data.message) || response.status));
          error.status = response.status;
          throw error;
        }
        return data;
      });
    });
}

// A list the mock cannot answer (an older mock without the route) is shown as such, not as empty. A
// list is one page (at most 100 entries); "more" says that the control API has further pages.
function list(path) {
  return api("GET", path).then(function (d) { return { rows: (d && d.data) || [], more: Boolean(d && d.nextCursor) }; },
    function (error) { return { rows: [], error: error.message }; });
}

function query() { return state.account ? "?accountId=" + encodeURIComponent(state.account) : ""; }

function section(id, columns, rows, missing, more) {
  var body = $(id);
  if (missing) {
    body.replaceChildren(el("tr", {}, [el("td", { colspan: String(columns), class: "muted", text: "not available: " + missing })]));
  } else if (rows.length === 0) {
    body.replaceChildren(el("tr", {}, [el("td", { colspan: String(columns), class: "muted", text: "nothing yet" })]));
  } else {
    if (more) rows = rows.concat([el("tr", { "data-testid": "more" }, [el("td", { colspan: String(columns), class: "muted",
      text: "first " + rows.length + " shown; the control API pages through the rest (?cursor=)" })])]);
    body.replaceChildren.apply(body, rows);
  }
}

function act(method, path, body, done) {
  return api(method, path, body).then(function () { notice(done, false); return refresh(); },
    function (error) { notice(error.message, true); });
}

function renderAccounts(result) {
  var select = $("account");
  var chosen = state.account;
  // Signed in with an account's keys: that account alone, no choice.
  select.disabled = Boolean(state.self);
  select.replaceChildren();
  if (!state.self) select.append(el("option", { value: "", text: "all accounts" }));
  result.rows.forEach(function (a) {
    var option = el("option", { value: a.accountId, text: a.accountId + " (" + a.publicKey + ")" });
    if (a.accountId === chosen) option.selected = true;
    select.append(option);
  });
  section("accounts", 7, result.rows.map(function (a) {
    var b = a.balance || {};
    return el("tr", { "data-account": a.accountId }, [
      el("td", {}, [el("code", { text: a.accountId })]),
      el("td", {}, [el("code", { text: a.publicKey })]),
      el("td", { text: a.payoutApproval + (a.autoAdvance ? ", auto" : ", manual steps") }),
      el("td", { text: a.webhookSigned ? "signed" : "unsigned" }),
      el("td", { class: "num", "data-testid": "available", text: brl(b.available) }),
      el("td", { class: "num", text: brl(b.reserved) }),
      el("td", { class: "num", text: brl(b.pending) }),
    ]);
  }), result.error, result.more);
}

function renderPayouts(result) {
  section("payouts", 7, result.rows.map(function (p) {
    var actions = el("td", { class: "actions" });
    if (p.status === "AWAITING_APPROVAL") {
      actions.append(
        el("button", { class: "approve", "data-action": "approve", text: "Approve",
          onclick: function () { act("POST", "payouts/" + encodeURIComponent(p.id) + "/approve", {}, p.id + " approved"); } }),
        el("button", { class: "reject", "data-action": "reject", text: "Reject",
          onclick: function () { act("POST", "payouts/" + encodeURIComponent(p.id) + "/reject", {}, p.id + " rejected"); } }));
    }
    return el("tr", { "data-payout": p.id, "data-status": p.status }, [
      el("td", {}, [el("code", { text: p.id }), el("div", { class: "muted", text: p.referenceId })]),
      el("td", { text: p.pixKeyType + " " + p.pixKey }),
      el("td", { class: "num", text: brl(p.amount) }),
      el("td", { class: "num", text: brl(p.feeAmount) }),
      el("td", {}, [badge(p.status), p.failureCode ? el("div", { class: "muted", text: p.failureCode }) : null]),
      el("td", {}, [history(p.statusHistory)]),
      actions,
    ]);
  }), result.error, result.more);
}

function renderPayins(result) {
  section("payins", 6, result.rows.map(function (p) {
    return el("tr", { "data-payin": p.id, "data-status": p.status }, [
      el("td", {}, [el("code", { text: p.id }), el("div", { class: "muted", text: p.referenceId || "" })]),
      el("td", { text: p.paymentMethod }),
      el("td", { class: "num", text: brl(p.amount) }),
      el("td", { class: "num", text: brl(p.netAmount) }),
      el("td", {}, [badge(p.status)]),
      el("td", {}, [history(p.statusHistory)]),
    ]);
  }), result.error, result.more);
}

function renderWebhooks(result) {
  // Newest first on screen; the API answers oldest first (this page: the log's oldest entries).
  var rows = result.rows.slice().reverse().map(function (d) {
    var attempts = el("ol", { class: "history" }, (d.attempts || []).map(function (a) {
      return el("li", { text: time(a.at) + " · " + (a.statusCode === null || a.statusCode === undefined ? "no answer" : "HTTP " + a.statusCode) + (a.error ? " · " + a.error : "") });
    }));
    return el("tr", { "data-delivery": d.id, "data-state": d.state }, [
      el("td", {}, [el("code", { text: d.id }), el("div", { class: "muted", text: d.webhookId })]),
      el("td", {}, [el("span", { text: d.resource + " " }), el("code", { text: d.resourceId })]),
      el("td", {}, [badge(d.status)]),
      el("td", { class: "url", text: d.url }),
      el("td", {}, [badge(d.state), el("div", { class: "muted", "data-testid": "attempt-count", text: (d.attempts || []).length + " attempt(s)" })]),
      el("td", {}, [attempts]),
      el("td", { class: "actions" }, [el("button", { "data-action": "redeliver", text: "Redeliver",
        onclick: function () { act("POST", "webhooks/" + encodeURIComponent(d.id) + "/redeliver", {}, d.id + " redelivered"); } })]),
    ]);
  });
  section("webhooks", 7, rows, result.error, result.more);
}

// The account's own clock when signed in with its keys; the sandbox clock otherwise.
function clockPath() { return state.self ? "accounts/" + encodeURIComponent(state.self) + "/clock" : "clock"; }

function renderClock() {
  return api("GET", clockPath()).then(function (c) {
    $("clock").textContent = new Date(c.now).toLocaleString() + "  (" + c.now + ")";
  }, function (error) { $("clock").textContent = error.message; });
}

// With an account's keys, learn which account they are (GET /_mock/account) before the rest.
function whoAmI() {
  if (!KEYS.test(state.token) || state.self) return Promise.resolve();
  return api("GET", "account").then(function (account) {
    if (account && account.accountId) state.self = state.account = account.accountId;
  }, function () {});
}

// The accounts shown: every account for the admin, the keys' own account alone (the list is the admin's).
function accounts() {
  if (!state.self) return list("accounts");
  return api("GET", "account").then(function (a) { return { rows: [a], more: false }; },
    function (error) { return { rows: [], error: error.message }; });
}

function refresh() {
  return whoAmI().then(refreshAll);
}

function refreshAll() {
  var q = query();
  return Promise.all([
    accounts().then(renderAccounts),
    list("payouts" + q).then(renderPayouts),
    list("payins" + q).then(renderPayins),
    list("webhooks" + q).then(renderWebhooks),
    renderClock(),
  ]).then(function () {
    $("updated").textContent = "updated " + new Date().toLocaleTimeString();
    document.body.setAttribute("data-ready", "true");
  });
}

function schedule() {
  clearInterval(state.timer);
  if ($("auto").checked) state.timer = setInterval(function () { if (!state.locked) refresh(); }, 2000);
}

$("account").addEventListener("change", function (e) { state.account = e.target.value; refresh(); });
$("refresh").addEventListener("click", refresh);
$("auto").addEventListener("change", schedule);
Array.prototype.forEach.call(document.querySelectorAll("[data-advance]"), function (button) {
  button.addEventListener("click", function () {
    act("POST", clockPath(), { advanceMs: Number(button.getAttribute("data-advance")) }, "clock moved forward");
  });
});
$("flush").addEventListener("click", function () {
  var own = state.self ? "?accountId=" + encodeURIComponent(state.self) : "";
  act("POST", "webhooks/flush" + own, {}, "due retries sent");
});
$("token-form").addEventListener("submit", function (e) {
  e.preventDefault();
  state.token = $("token").value.trim();
  state.self = state.account = "";
  sessionStorage.setItem("paykit-mock-credentials", state.token);
  state.locked = false;
  $("token-form").hidden = true;
  refresh();
});
refresh();
schedule();
`;

const STYLE = `
:root { font-family: system-ui, sans-serif; color: #1d2433; background: #f4f6fa; }
body { margin: 0; }
header { background: #22303f; color: #fff; padding: 12px 24px; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0 16px 0 0; }
header select, header button, header label { font: inherit; font-size: 13px; }
header button { background: #fff; border: 0; border-radius: 4px; padding: 4px 8px; cursor: pointer; }
main { padding: 16px 24px; display: grid; gap: 16px; }
section { background: #fff; border-radius: 8px; padding: 12px 16px; box-shadow: 0 1px 3px rgba(0,0,0,.12); overflow-x: auto; }
h2 { font-size: 15px; margin: 4px 0 8px; }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid #e5e9f0; vertical-align: top; }
th { color: #5b6578; font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.muted { color: #6b7487; font-size: 12px; }
.url { max-width: 260px; word-break: break-all; font-size: 12px; }
.badge { font-weight: 600; padding: 1px 8px; border-radius: 999px; font-size: 12px; white-space: nowrap; }
.badge.ok { background: #d6f5df; color: #106b2c; }
.badge.bad { background: #fde0e0; color: #8a1c1c; }
.badge.wait { background: #fff1c7; color: #7a5300; }
.history { margin: 0; padding-left: 16px; font-size: 12px; color: #3c4558; }
.actions button { font: inherit; font-size: 12px; margin: 0 4px 4px 0; padding: 3px 8px; border-radius: 4px; border: 1px solid #22303f; background: #fff; cursor: pointer; }
.actions button.approve { background: #0a7d32; border-color: #0a7d32; color: #fff; }
.actions button.reject { background: #b3261e; border-color: #b3261e; color: #fff; }
.notice { margin: 0; padding: 8px 24px; background: #e3f1ff; font-size: 13px; }
.notice.error { background: #fde0e0; color: #8a1c1c; }
#clock { font-variant-numeric: tabular-nums; }
`;

const BODY = `
<header>
  <h1>Paykit mock · dashboard</h1>
  <label>Account <select id="account" aria-label="Account"><option value="">all accounts</option></select></label>
  <span>Clock <strong id="clock" data-testid="clock">…</strong></span>
  <button data-advance="3600000" type="button">+1 h</button>
  <button data-advance="86400000" type="button">+1 day</button>
  <button id="flush" type="button">Send due webhook retries</button>
  <button id="refresh" type="button">Refresh</button>
  <label><input type="checkbox" id="auto" checked> auto</label>
  <span id="updated" class="muted"></span>
</header>
<p id="notice" class="notice" role="status" hidden></p>
<form id="token-form" class="notice error" hidden>
  This mock needs its admin token, or on a shared sandbox an account's keys (pk_test_…:sk_test_…):
  <input id="token" type="password" autocomplete="off" aria-label="Admin token or account keys"> <button>Use</button>
</form>
<main>
  <section><h2>Accounts and balances</h2>
    <table><thead><tr><th>Account</th><th>Public key</th><th>Payouts</th><th>Webhooks</th>
      <th class="num">Available</th><th class="num">Reserved</th><th class="num">Pending</th></tr></thead>
    <tbody id="accounts"></tbody></table></section>
  <section><h2>Payouts</h2>
    <table><thead><tr><th>Payout</th><th>PIX key</th><th class="num">Amount</th><th class="num">Fee</th>
      <th>Status</th><th>History</th><th></th></tr></thead>
    <tbody id="payouts"></tbody></table></section>
  <section><h2>Payins</h2>
    <table><thead><tr><th>Payin</th><th>Method</th><th class="num">Amount</th><th class="num">Net</th>
      <th>Status</th><th>History</th></tr></thead>
    <tbody id="payins"></tbody></table></section>
  <section><h2>Webhook deliveries</h2>
    <table><thead><tr><th>Delivery</th><th>Resource</th><th>Status sent</th><th>URL</th><th>State</th>
      <th>Attempts</th><th></th></tr></thead>
    <tbody id="webhooks"></tbody></table></section>
</main>
`;

/**
 * The mock's merchant dashboard (`GET /_mock/dashboard`): accounts and balances, payins and payouts
 * with their status history, Approve / Reject for payouts awaiting manual approval, the webhook
 * delivery log with a Redeliver button, and the mock clock. A standalone HTML page; its inline script
 * calls the `/_mock` control API of the same origin.
 *
 * @example
 * ```ts
 * if (path === "/_mock/dashboard") return new Response(renderDashboardPage(), { headers: { "content-type": "text/html; charset=utf-8" } });
 * ```
 */
export function renderDashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Paykit mock · dashboard</title>
<style>${STYLE}</style>
</head>
<body>
${BODY}
<script>${SCRIPT}</script>
</body>
</html>
`;
}
