import type { CheckoutLocale, CheckoutStrings } from "@paykit/browser/checkout";

/** The texts of `<PaykitPayment>`: the screen's own, plus the one shown until the screen is drawn. */
export interface PaykitPaymentStrings extends CheckoutStrings {
  /** Shown in the placeholder rendered on the server and on the first client render, until the screen is drawn. */
  loading: string;
}

/** The placeholder's text in each shipped locale; the screen's other texts come from `@paykit/browser/checkout`. */
export const LOADING_STRINGS: Readonly<Record<CheckoutLocale, string>> = {
  "pt-BR": "Carregando o pagamento…",
  en: "Loading the payment…",
};

/**
 * The shipped locale for a BCP 47 tag, chosen as the screen of `@paykit/browser/checkout` chooses it: `en` for
 * any English tag, `pt-BR` for everything else (test/placeholder.test.tsx holds the two to the same answer).
 */
export function placeholderLocale(tag: string | undefined): CheckoutLocale {
  return /^en\b/i.test(tag ?? "") ? "en" : "pt-BR";
}
