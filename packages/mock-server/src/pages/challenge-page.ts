import { escapeHtml, page, scriptJson } from "./html.js";
import { CLOSED_CODES, THREE_DS_MESSAGE_SOURCE } from "./three-ds-script.js";

/** What the mock's 3DS challenge page needs. */
export interface ChallengePageFields {
  transactionId: string;
  /** The origin of the page that opened the challenge: the only one messages go to and come from. */
  parentOrigin: string;
  /** Where the buttons post `{ tx, session, action }`. */
  endpoint: string;
}

/**
 * The challenge page loaded in the iframe: waits for the session from its parent (origin checked),
 * shows the buttons docs/decisions/three-ds.md names (accessible names Approve / Reject / Cancel, the
 * Portuguese beside them, hidden from the accessible name),
 * then Approve / Reject post `{ tx, session, action }` to the mock and report the outcome to the
 * parent; Cancel reports CANCELED without touching the payin.
 */
export function challengePage(fields: ChallengePageFields): string {
  const body = `<h1>Verificação 3-D Secure</h1>
<p>Confirme a compra no seu banco.</p>
<dl>
<dt>Valor</dt><dd id="amount">…</dd>
<dt>Cartão</dt><dd id="card">…</dd>
<dt>Transação</dt><dd>${escapeHtml(fields.transactionId)}</dd>
</dl>
<div class="actions">
<button type="button" id="approve" class="primary" disabled>Approve<span class="pt" lang="pt-BR" aria-hidden="true">Aprovar</span></button>
<button type="button" id="reject" class="danger" disabled>Reject<span class="pt" lang="pt-BR" aria-hidden="true">Recusar</span></button>
<button type="button" id="cancel" disabled>Cancel<span class="pt" lang="pt-BR" aria-hidden="true">Cancelar</span></button>
</div>
<p class="note" id="message"></p>`;
  const script = `(function () {
  "use strict";
  var PARENT = ${scriptJson(fields.parentOrigin)};
  var TX = ${scriptJson(fields.transactionId)};
  var ENDPOINT = ${scriptJson(fields.endpoint)};
  var SOURCE = ${scriptJson(THREE_DS_MESSAGE_SOURCE)};
  var CLOSED = ${scriptJson(CLOSED_CODES)};
  var session = null;
  var buttons = ["approve", "reject", "cancel"].map(function (id) { return document.getElementById(id); });
  function enable(on) { buttons.forEach(function (b) { b.disabled = !on; }); }
  function post(message) { message.source = SOURCE; window.parent.postMessage(message, PARENT); }
  function reais(cents) { return "R$ " + (cents / 100).toFixed(2).replace(".", ","); }
  window.addEventListener("message", function (event) {
    if (event.origin !== PARENT || event.source !== window.parent) return;
    var data = event.data;
    if (!data || typeof data !== "object" || data.source !== SOURCE || data.type !== "session") return;
    if (data.transactionId !== TX || typeof data.session !== "string") return;
    session = data.session;
    if (typeof data.amount === "number") document.getElementById("amount").textContent = reais(data.amount) + (data.installments > 1 ? " em " + data.installments + "x" : "");
    if (data.last4) document.getElementById("card").textContent = "•••• " + String(data.last4).slice(-4);
    enable(true);
  });
  function decide(action) {
    if (action === "cancel") { post({ type: "result", outcome: "CANCELED" }); return; }
    enable(false);
    fetch(ENDPOINT, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ tx: TX, session: session, action: action }) })
      .then(function (response) {
        return response.json().then(function (body) {
          if (response.ok) { post({ type: "result", outcome: body.outcome }); return; }
          var code = body && CLOSED.indexOf(body.code) >= 0 ? body.code : undefined;
          var message = body && body.message ? body.message : "the challenge was refused";
          document.getElementById("message").textContent = message;
          post({ type: "error", code: code, message: message });
        });
      })
      .catch(function () { post({ type: "error", message: "the challenge could not reach the acquirer" }); });
  }
  buttons[0].addEventListener("click", function () { decide("approve"); });
  buttons[1].addEventListener("click", function () { decide("reject"); });
  buttons[2].addEventListener("click", function () { decide("cancel"); });
  post({ type: "ready" });
})();`;
  return page("3-D Secure: Paykit Mock Acquirer", body, script);
}

/** Why a challenge cannot be opened: no such transaction, already decided, or expired. */
export type ClosedChallengeReason = "unknown" | "decided" | "expired";

const CLOSED_TEXT: Record<
  ClosedChallengeReason,
  { code: (typeof CLOSED_CODES)[number]; title: string; text: string; note: string }
> = {
  unknown: {
    code: "CHALLENGE_UNAVAILABLE",
    title: "Verificação indisponível",
    text: "Não encontramos esta verificação. Volte à loja e tente de novo.",
    note: "No 3-D Secure challenge has this transaction id: the payin answer is stale (an in-memory mock forgets its payins when it restarts; --data-dir or --store keep them).",
  },
  decided: {
    code: "CHALLENGE_UNAVAILABLE",
    title: "Verificação já concluída",
    text: "Esta compra já foi confirmada ou recusada. Volte à loja.",
    note: "This 3-D Secure challenge was already completed: read the payin's status from the merchant backend.",
  },
  expired: {
    code: "CHALLENGE_EXPIRED",
    title: "Verificação expirada",
    text: "O tempo para confirmar esta compra acabou. Volte à loja e tente de novo.",
    note: "This 3-D Secure challenge expired before the customer decided: the payin is EXPIRED.",
  },
};

/**
 * The page the challenge URL serves when the challenge is not open (a stale 201 answer, a payin already
 * decided or expired): it says so, in Portuguese with an English note, and reports it to the acquirer's
 * script in the parent page (`{ type: "error", code }`), which removes the iframe and rejects. A page
 * opened with no valid parent origin only shows the message.
 */
export function closedChallengePage(reason: ClosedChallengeReason, parentOrigin: string | null): string {
  const { code, title, text, note } = CLOSED_TEXT[reason];
  const body = `<div role="alert">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
</div>
<p class="note" lang="en">${escapeHtml(note)}</p>`;
  const script =
    parentOrigin === null
      ? ""
      : `(function () {
  "use strict";
  window.parent.postMessage(${scriptJson({ source: THREE_DS_MESSAGE_SOURCE, type: "error", code, message: note })}, ${scriptJson(parentOrigin)});
})();`;
  return page("3-D Secure: Paykit Mock Acquirer", body, script);
}
