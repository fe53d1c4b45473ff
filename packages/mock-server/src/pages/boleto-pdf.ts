/** What the mock's boleto PDF shows. */
export interface BoletoPdfFields {
  payinId: string;
  /** The 47-digit digitable line. */
  line: string;
  amountCents: number;
  /** Due date, `YYYY-MM-DD`. */
  dueDate: string;
  payerName: string;
}

/** R$ 1.234,56 from cents. */
export function formatReais(cents: number): string {
  const reais = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ".");
  return `R$ ${reais},${String(cents % 100).padStart(2, "0")}`;
}

// PDF string literals: escape the delimiters, and keep to printable ASCII (the standard fonts'
// encoding is not UTF-8), folding accents away.
function pdfText(value: string): string {
  const ascii = value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, "?");
  return ascii.replace(/[\\()]/g, (c) => `\\${c}`);
}

function groupLine(line: string): string {
  // The printed form: AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line.slice(32, 33)} ${line.slice(33)}`;
}

/**
 * A one-page PDF 1.4 of a boleto: the digitable line, amount, due date and payer, in Helvetica, with a
 * correct cross-reference table (every offset counted in bytes; the file is pure ASCII).
 */
export function boletoPdf(fields: BoletoPdfFields): Uint8Array {
  const lines: Array<[number, number, string]> = [
    [18, 780, "Boleto - Paykit Mock Bank"],
    [11, 750, `Pagador: ${fields.payerName}`],
    [11, 732, `Valor: ${formatReais(fields.amountCents)}`],
    [11, 714, `Vencimento: ${fields.dueDate}`],
    [11, 696, `Pagamento: ${fields.payinId}`],
    [12, 660, "Linha digitavel:"],
    [12, 642, groupLine(fields.line)],
  ];
  const content = lines
    .map(([size, y, text]) => `BT /F1 ${size} Tf 50 ${y} Td (${pdfText(text)}) Tj ET`)
    .join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new TextEncoder().encode(pdf);
}
