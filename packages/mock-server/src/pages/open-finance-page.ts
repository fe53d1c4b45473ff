import { formatReais } from "./boleto-pdf.js";
import { escapeHtml, page } from "./html.js";

/** What the mock bank's authorization page shows. */
export interface OpenFinancePageFields {
  payinId: string;
  amountCents: number;
  payerName: string;
  status: string;
  /** Where the Approve / Deny form posts. */
  action: string;
}

/**
 * The mock bank's open finance authorization page: Approve / Deny buttons that post a form to the
 * mock, which moves the payin to APPROVED or REFUSED (DESIGN.md section 3). No script needed.
 */
export function openFinancePage(fields: OpenFinancePageFields): string {
  const pending = fields.status === "PENDING";
  const details = `<dl>
<dt>Valor</dt><dd>${escapeHtml(formatReais(fields.amountCents))}</dd>
<dt>Pagador</dt><dd>${escapeHtml(fields.payerName)}</dd>
<dt>Pagamento</dt><dd>${escapeHtml(fields.payinId)}</dd>
<dt>Situação</dt><dd id="status">${escapeHtml(fields.status)}</dd>
</dl>`;
  const form = pending
    ? `<form method="post" action="${escapeHtml(fields.action)}" class="actions">
<button type="submit" name="decision" value="approve" class="primary">Aprovar</button>
<button type="submit" name="decision" value="deny" class="danger">Recusar</button>
</form>`
    : `<p class="note">Este pagamento já foi decidido.</p>`;
  return page(
    "Paykit Mock Bank: autorizar pagamento",
    `<h1>Autorizar pagamento (Open Finance)</h1>\n${details}\n${form}`,
  );
}

/** The page after the customer's decision. */
export function openFinanceDonePage(payinId: string, status: string): string {
  return page(
    "Paykit Mock Bank: pagamento decidido",
    `<h1>${status === "APPROVED" ? "Pagamento autorizado" : "Pagamento recusado"}</h1>
<dl><dt>Pagamento</dt><dd>${escapeHtml(payinId)}</dd><dt>Situação</dt><dd id="status">${escapeHtml(status)}</dd></dl>
<p class="note">Você já pode voltar à loja.</p>`,
  );
}
