/**
 * Every text the payment screen shows or announces. `{time}`, `{date}`, `{minutes}` and `{method}` are filled in
 * when shown. Pass some of them as `strings` to reword the screen; the rest come from the locale.
 */
export interface CheckoutStrings {
  /** Amount label, before the formatted value. */
  amount: string;
  /** Copy button of the PIX code. */
  copyCode: string;
  /** Copy button of the boleto's digitable line. */
  copyLine: string;
  /** Shown and announced after a successful copy. */
  copied: string;
  /** Shown when the browser refused the clipboard: the text is selected for a manual copy. */
  copyFallback: string;
  /** Shown while the screen waits for the payment. */
  waiting: string;
  /** Title of the PIX screen. */
  pixTitle: string;
  /** How to pay by PIX. */
  pixHowTo: string;
  /** Label of the PIX copy-and-paste code. */
  pixCode: string;
  /** The countdown to the PIX code's expiry; `{time}` is `mm:ss` or `h:mm:ss`. */
  expiresIn: string;
  /** Announced when few minutes are left; `{minutes}` is the number. */
  expiringSoon: string;
  /** Title of the BOLETO screen. */
  boletoTitle: string;
  /** How to pay a boleto. */
  boletoHowTo: string;
  /** Label of the digitable line. */
  boletoLine: string;
  /** The due date; `{date}` is the formatted day. */
  dueDate: string;
  /** Link to the boleto's PDF (opens in a new tab). */
  boletoPdf: string;
  /** Title of the OPEN_FINANCE screen. */
  openFinanceTitle: string;
  /** What happens at the bank. */
  openFinanceHowTo: string;
  /** The button to the bank. */
  openFinanceButton: string;
  /** Shown when the shopper is back from the bank and the payment is not confirmed yet. */
  openFinanceReturned: string;
  /** Link to go back to the bank from that state. */
  openFinanceAgain: string;
  /** Title of the card screen while the bank's 3DS confirmation runs. */
  cardTitle: string;
  /** What the 3DS confirmation is. */
  cardHowTo: string;
  /** Shown after the 3DS confirmation, until the final status. */
  cardConfirming: string;
  /** Shown when the shopper closed the 3DS confirmation. */
  cardCanceled: string;
  /** Shown when the 3DS confirmation could not run (script blocked, timeout). */
  cardFailed: string;
  /** Button that runs the 3DS confirmation again. */
  retry: string;
  /** Final state APPROVED: title. */
  approvedTitle: string;
  /** Final state APPROVED: text. */
  approvedText: string;
  /** Final state REFUSED: title. */
  refusedTitle: string;
  /** Final state REFUSED: text. */
  refusedText: string;
  /** Final state EXPIRED (and the end of the countdown): title. */
  expiredTitle: string;
  /** Final state EXPIRED: text. */
  expiredText: string;
  /** Title when the status cannot be followed (unknown payin, 3DS failure). */
  errorTitle: string;
  /** Text of that state. */
  errorText: string;
  /**
   * With `onRenew`, the button of the expired state that asks for a new payment, and after a failed attempt the
   * one that tries again; `{method}` is `Pix` or `boleto`.
   */
  renew: string;
  /** Shown and announced while the new payment is being created (the expired title above it). */
  renewing: string;
  /** Shown and announced when the new payment could not be created, above the `renew` button. */
  renewFailed: string;
}

/** A locale the screen ships: Brazilian Portuguese (the default) or English. */
export type CheckoutLocale = "pt-BR" | "en";

const ptBR: CheckoutStrings = {
  amount: "Valor",
  copyCode: "Copiar código",
  copyLine: "Copiar linha digitável",
  copied: "Copiado!",
  copyFallback: "Código selecionado: tecle Ctrl+C para copiar.",
  waiting: "Aguardando o pagamento…",
  pixTitle: "Pague com PIX",
  pixHowTo: "No app do seu banco, escolha PIX e leia o QR code ou cole o código.",
  pixCode: "PIX copia e cola",
  expiresIn: "O código expira em {time}",
  expiringSoon: "O código expira em {minutes} min.",
  boletoTitle: "Pague o boleto",
  boletoHowTo:
    "Pague no app do banco ou numa lotérica até o vencimento. A confirmação leva até 3 dias úteis.",
  boletoLine: "Linha digitável",
  dueDate: "Vencimento: {date}",
  boletoPdf: "Abrir o boleto (PDF)",
  openFinanceTitle: "Pague pelo seu banco",
  openFinanceHowTo: "Você autoriza o pagamento no seu banco (Open Finance) e volta para cá.",
  openFinanceButton: "Ir para o banco",
  openFinanceReturned: "Confirmando o pagamento com o seu banco…",
  openFinanceAgain: "Voltar ao banco",
  cardTitle: "Confirme a compra",
  cardHowTo: "O seu banco pede uma confirmação de segurança.",
  cardConfirming: "Confirmando o pagamento…",
  cardCanceled: "Você fechou a confirmação; sem ela não há pagamento.",
  cardFailed: "A confirmação do banco não pôde ser aberta.",
  retry: "Tentar de novo",
  approvedTitle: "Pagamento aprovado",
  approvedText: "Recebemos o seu pagamento. Obrigado!",
  refusedTitle: "Pagamento recusado",
  refusedText: "O pagamento não foi concluído. Tente outra forma de pagamento.",
  expiredTitle: "Prazo encerrado",
  expiredText: "O prazo para pagar terminou. Faça um novo pedido.",
  errorTitle: "Não foi possível acompanhar o pagamento",
  errorText: "Se você já pagou, o pagamento será confirmado.",
  renew: "Gerar novo {method}",
  renewing: "Gerando um novo pagamento…",
  renewFailed: "Não foi possível gerar um novo pagamento.",
};

const en: CheckoutStrings = {
  amount: "Amount",
  copyCode: "Copy code",
  copyLine: "Copy digitable line",
  copied: "Copied!",
  copyFallback: "Code selected: press Ctrl+C to copy.",
  waiting: "Waiting for the payment…",
  pixTitle: "Pay with PIX",
  pixHowTo: "In your bank's app, choose PIX and scan the QR code or paste the code.",
  pixCode: "PIX copy and paste",
  expiresIn: "The code expires in {time}",
  expiringSoon: "The code expires in {minutes} min.",
  boletoTitle: "Pay the boleto",
  boletoHowTo:
    "Pay in your bank's app or at a lottery shop by the due date. Confirmation takes up to 3 business days.",
  boletoLine: "Digitable line",
  dueDate: "Due date: {date}",
  boletoPdf: "Open the boleto (PDF)",
  openFinanceTitle: "Pay from your bank",
  openFinanceHowTo: "You authorize the payment at your bank (Open Finance) and come back here.",
  openFinanceButton: "Go to your bank",
  openFinanceReturned: "Confirming the payment with your bank…",
  openFinanceAgain: "Back to your bank",
  cardTitle: "Confirm your purchase",
  cardHowTo: "Your bank asks for a security confirmation.",
  cardConfirming: "Confirming the payment…",
  cardCanceled: "You closed the confirmation; without it there is no payment.",
  cardFailed: "Your bank's confirmation could not be opened.",
  retry: "Try again",
  approvedTitle: "Payment approved",
  approvedText: "We received your payment. Thank you!",
  refusedTitle: "Payment refused",
  refusedText: "The payment did not go through. Try another payment method.",
  expiredTitle: "Time is up",
  expiredText: "The time to pay has ended. Place a new order.",
  errorTitle: "The payment cannot be followed",
  errorText: "If you already paid, the payment will be confirmed.",
  renew: "Get a new {method}",
  renewing: "Creating a new payment…",
  renewFailed: "A new payment could not be created.",
};

/** The strings of each shipped locale. */
export const CHECKOUT_STRINGS: Readonly<Record<CheckoutLocale, Readonly<CheckoutStrings>>> = {
  "pt-BR": ptBR,
  en,
};

/** The shipped locale for a BCP 47 tag: `en` for any English tag, `pt-BR` for everything else. */
export function checkoutLocale(tag?: string): CheckoutLocale {
  return /^en\b/i.test(tag ?? "") ? "en" : "pt-BR";
}

/** Fills `{name}` placeholders. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (match, name: string) => String(values[name] ?? match));
}
