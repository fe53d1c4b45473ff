import { formatReais } from "./boleto-pdf.js";
import { escapeHtml, page } from "./html.js";

/** Seconds the decided page shows the outcome before it sends the customer back to the store. */
export const OPEN_FINANCE_RETURN_DELAY_S = 3;

/** What the mock bank's authorization page shows. */
export interface OpenFinancePageFields {
  payinId: string;
  amountCents: number;
  payerName: string;
  status: string;
  /** Where the Approve / Deny form posts. */
  action: string;
  /** This page's token: the decision is accepted only with it, so another site cannot post one. */
  token: string;
  /** The store's page to come back to after the decision (already validated), or null. */
  returnUrl: string | null;
}

/**
 * The mock bank's open finance authorization page: Approve / Deny buttons that post a form to the
 * mock, which moves the payin to APPROVED or REFUSED (docs/decisions/payment-data.md). No script needed.
 */
export function openFinancePage(fields: OpenFinancePageFields): string {
  const pending = fields.status === "PENDING";
  const details = `<dl>
<dt>Valor</dt><dd>${escapeHtml(formatReais(fields.amountCents))}</dd>
<dt>Pagador</dt><dd>${escapeHtml(fields.payerName)}</dd>
<dt>Pagamento</dt><dd>${escapeHtml(fields.payinId)}</dd>
<dt>Situação</dt><dd id="status">${escapeHtml(fields.status)}</dd>
</dl>`;
  const keepReturn = fields.returnUrl
    ? `\n<input type="hidden" name="returnUrl" value="${escapeHtml(fields.returnUrl)}">`
    : "";
  const form = pending
    ? `<form method="post" action="${escapeHtml(fields.action)}" class="actions">${keepReturn}
<input type="hidden" name="token" value="${escapeHtml(fields.token)}">
<button type="submit" name="decision" value="approve" class="primary">Approve<span class="pt" lang="pt-BR" aria-hidden="true">Aprovar</span></button>
<button type="submit" name="decision" value="deny" class="danger">Deny<span class="pt" lang="pt-BR" aria-hidden="true">Recusar</span></button>
</form>`
    : `<p class="note">Este pagamento já foi decidido.</p>${backLink(fields.returnUrl, fields.payinId, fields.status)}`;
  return page(
    "Paykit Mock Bank: autorizar pagamento",
    `<h1>Autorizar pagamento (Open Finance)</h1>\n${details}\n${form}`,
  );
}

/**
 * The store's return URL with the payin's id and status appended (`payinId`, `status`), as a bank
 * sends the customer back; the store confirms the outcome with GET /payin or the webhook.
 */
export function returnUrlWithOutcome(returnUrl: string, payinId: string, status: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set("payinId", payinId);
  url.searchParams.set("status", status);
  return url.href;
}

function backLink(returnUrl: string | null, payinId: string, status: string): string {
  if (!returnUrl) return "";
  const href = escapeHtml(returnUrlWithOutcome(returnUrl, payinId, status));
  return `\n<p><a id="return" href="${href}">Voltar à loja</a></p>`;
}

/**
 * The page after the customer's decision: the outcome, and with a return URL a link back to the store
 * that is also followed by itself after {@link OPEN_FINANCE_RETURN_DELAY_S} seconds (no script).
 */
export function openFinanceDonePage(
  payinId: string,
  status: string,
  returnUrl: string | null = null,
): string {
  const note = returnUrl
    ? `<p class="note">Voltando à loja em ${OPEN_FINANCE_RETURN_DELAY_S} segundos.</p>`
    : `<p class="note">Você já pode voltar à loja.</p>`;
  const refresh = returnUrl
    ? `<meta http-equiv="refresh" content="${OPEN_FINANCE_RETURN_DELAY_S};url=${escapeHtml(returnUrlWithOutcome(returnUrl, payinId, status))}">\n`
    : "";
  return page(
    "Paykit Mock Bank: pagamento decidido",
    `<h1>${status === "APPROVED" ? "Pagamento autorizado" : "Pagamento recusado"}</h1>
<dl><dt>Pagamento</dt><dd>${escapeHtml(payinId)}</dd><dt>Situação</dt><dd id="status">${escapeHtml(status)}</dd></dl>
${note}${backLink(returnUrl, payinId, status)}`,
    "",
    refresh,
  );
}
