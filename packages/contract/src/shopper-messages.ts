// Messages a shopper can act on, from the service's error codes and `details[].path`. No zod and no
// schema here (only types are imported): a checkout page bundles this file and nothing else of the contract.
import type { KnownErrorCode } from "./error.js";

/** The languages shoppers get messages in: Brazilian Portuguese (the default) and English. */
export type ShopperLocale = "pt-BR" | "en";

/**
 * What the shopper can do about the error, for the checkout to choose its next screen:
 * - `fix-fields`: correct the fields in `fields`, then send the form again;
 * - `try-again`: nothing is wrong with what they typed: try again (now, or in a few minutes);
 * - `change-payment`: use another card or another payment method;
 * - `change-amount`: a smaller amount may pass (balance or time-of-day limits of a transfer);
 * - `contact-store`: the store must fix something first; the shopper cannot.
 */
export type ShopperAction = "fix-fields" | "try-again" | "change-payment" | "change-amount" | "contact-store";

/** What a checkout form shows for a failed payment request. */
export interface ShopperErrorMessage {
  /** One sentence for the whole form (a banner or a toast), in the shopper's language. */
  message: string;
  /**
   * One message per form field the shopper can correct, keyed by the error's `details[].path`
   * (`customer.document`, `customer.address.zipCode`, `card.cvv`, `pixKey`). Fields only the store
   * controls (`referenceId`, `items.0.quantity`, `webhookUrl`) never appear here.
   */
  fields: Record<string, string>;
  /** What the shopper can do next. */
  action: ShopperAction;
  /** The code the message was chosen for (the service's, `UNKNOWN_ERROR` when there was none), for logs. */
  code: string;
}

/** The texts of one form field: which one shows depends on what its `details[].message` says. */
export interface ShopperFieldText {
  /** The value is wrong (the default). */
  invalid: string;
  /** The field is missing or empty. */
  required?: string;
  /** The value is too long; `{max}` is replaced by the limit. */
  tooLong?: string;
  /** The card's expiry is in the past. */
  expired?: string;
}

/** The 3DS error codes of `@paykit/browser` a checkout may pass on to the shopper. */
export type ShopperThreeDSCode =
  | "CHALLENGE_EXPIRED"
  | "CHALLENGE_TIMEOUT"
  | "CHALLENGE_UNAVAILABLE"
  | "CHALLENGE_FAILED"
  | "SCRIPT_LOAD_FAILED"
  | "SCRIPT_TIMEOUT"
  | "SDK_MISSING";

/** Every text of one language: a message per error code, per field, and the two summaries. */
export interface ShopperCatalog {
  /** The form's message per error code: the service's codes and the browser's 3DS codes. */
  codes: Record<KnownErrorCode | ShopperThreeDSCode, string>;
  /** The texts per field path the shopper types (customer, address, card, PIX key). */
  fields: Record<ShopperFieldPath, ShopperFieldText>;
  /** The form's message when several fields are wrong. */
  fixFields: string;
  /** The form's message for an unknown code, or an error that is not the service's. */
  fallback: string;
}

/** Your own texts over a language's: any code, field or summary you give replaces that one. */
export interface ShopperCatalogOverrides {
  /** Messages per error code (also codes this version does not know). */
  codes?: Partial<Record<string, string>>;
  /** Texts per field path; the kinds you leave out keep the language's. */
  fields?: Partial<Record<string, Partial<ShopperFieldText>>>;
  /** The form's message when several fields are wrong. */
  fixFields?: string;
  /** The form's message for an unknown code. */
  fallback?: string;
}

/** How {@link formatPaymentError} writes its messages. */
export interface FormatPaymentErrorOptions {
  /**
   * The shopper's language: `pt-BR` (the default) or `en`. Any `pt…` tag is `pt-BR`, any `en…` tag is
   * `en` (so `navigator.language` can be passed as it is); any other tag is `pt-BR` unless `messages`
   * gives the texts.
   */
  locale?: ShopperLocale | (string & {});
  /** Your own texts over the language's. */
  messages?: ShopperCatalogOverrides;
}

/** The paths of every field of a payin or payout request that the shopper types into a form. */
export const SHOPPER_FIELD_PATHS = [
  "customer",
  "customer.name",
  "customer.document",
  "customer.email",
  "customer.phone",
  "customer.address",
  "customer.address.street",
  "customer.address.number",
  "customer.address.zipCode",
  "customer.address.city",
  "customer.address.state",
  "customer.address.complement",
  "customer.address.neighborhood",
  "card",
  "card.token",
  "card.holderName",
  "card.number",
  "card.expirationMonth",
  "card.expirationYear",
  "card.cvv",
  "card.installments",
  "pixKey",
] as const;
/** A field path the shopper types into a form. */
export type ShopperFieldPath = (typeof SHOPPER_FIELD_PATHS)[number];

// What the shopper can do, per code; a code not listed is `try-again`.
const ACTIONS: Partial<Record<string, ShopperAction>> = {
  INVALID_DATA: "contact-store",
  REJECTED_BY_RISK: "change-payment",
  PAYER_LIMIT_REJECTED: "change-payment",
  INVALID_CVV: "fix-fields",
  INSUFFICIENT_FUNDS: "change-amount",
  INVALID_PIX_KEY: "fix-fields",
  BEYOND_LIMITS: "change-amount",
  PROVIDER_REJECTED: "change-payment",
  UNAUTHORIZED: "contact-store",
  KYC_NOT_APPROVED: "contact-store",
  CREDIT_CARD_NOT_ENABLED: "change-payment",
  METHOD_NOT_ALLOWED: "contact-store",
  PAYLOAD_TOO_LARGE: "contact-store",
  UNSUPPORTED_MEDIA_TYPE: "contact-store",
};

// The field a code without `details` points at.
const CODE_FIELDS: Partial<Record<string, ShopperFieldPath>> = {
  INVALID_CVV: "card.cvv",
  INVALID_PIX_KEY: "pixKey",
};

/** The texts in Brazilian Portuguese (the default language). */
export const SHOPPER_MESSAGES_PT_BR: ShopperCatalog = {
  codes: {
    INVALID_DATA:
      "Não foi possível iniciar o pagamento por um problema na loja. Tente de novo mais tarde ou fale com a loja.",
    REJECTED_BY_RISK: "Pagamento não aprovado pela análise de segurança. Tente outra forma de pagamento.",
    PAYER_LIMIT_REJECTED: "Cartão recusado: saldo insuficiente, tente outro cartão.",
    INVALID_CVV: "Cartão recusado: código de segurança (CVV) incorreto. Confira e tente de novo.",
    PROVIDER_ERROR: "A operadora do cartão não respondeu. Tente de novo em alguns minutos.",
    INSUFFICIENT_FUNDS: "Saldo insuficiente para esta transferência. Tente um valor menor.",
    INVALID_PIX_KEY: "Chave PIX inválida ou não encontrada. Confira a chave e tente de novo.",
    BEYOND_LIMITS: "Valor acima do limite permitido neste horário. Tente um valor menor ou mais tarde.",
    TEMPORARY_UNAVAILABLE:
      "O serviço de pagamento está indisponível no momento. Tente de novo em alguns minutos.",
    PROVIDER_REJECTED: "O banco recusou a operação. Confira os dados ou use outra forma de pagamento.",
    UNAUTHORIZED: "A loja não conseguiu falar com o serviço de pagamento. Fale com a loja.",
    KYC_NOT_APPROVED: "Esta loja ainda não pode receber pagamentos. Fale com a loja.",
    CREDIT_CARD_NOT_ENABLED:
      "Esta loja ainda não aceita cartão de crédito. Escolha outra forma de pagamento.",
    NOT_FOUND: "Pagamento não encontrado. Recarregue a página e tente de novo.",
    METHOD_NOT_ALLOWED: "Não foi possível processar o pagamento por um problema na loja. Fale com a loja.",
    PAYLOAD_TOO_LARGE: "Não foi possível processar o pagamento por um problema na loja. Fale com a loja.",
    UNSUPPORTED_MEDIA_TYPE:
      "Não foi possível processar o pagamento por um problema na loja. Fale com a loja.",
    RATE_LIMITED: "Muitas tentativas em pouco tempo. Aguarde um instante e tente de novo.",
    INTERNAL_ERROR: "Algo deu errado no serviço de pagamento. Tente de novo em alguns minutos.",
    CHALLENGE_EXPIRED: "O tempo para confirmar a compra no seu banco acabou. Faça o pedido de novo.",
    CHALLENGE_TIMEOUT: "A confirmação no seu banco não terminou a tempo. Tente de novo.",
    CHALLENGE_UNAVAILABLE: "Esta confirmação não está mais disponível. Confira o status do pedido.",
    CHALLENGE_FAILED: "Não foi possível concluir a confirmação no seu banco. Tente de novo.",
    SCRIPT_LOAD_FAILED:
      "Não foi possível abrir a confirmação do seu banco. Confira sua conexão e tente de novo.",
    SCRIPT_TIMEOUT: "Não foi possível abrir a confirmação do seu banco. Confira sua conexão e tente de novo.",
    SDK_MISSING: "Não foi possível abrir a confirmação do seu banco. Tente de novo mais tarde.",
  },
  fields: {
    customer: { invalid: "Confira seus dados", required: "Preencha seus dados" },
    "customer.name": {
      invalid: "Nome inválido",
      required: "Informe seu nome",
      tooLong: "Nome muito longo: use até {max} caracteres",
    },
    "customer.document": { invalid: "CPF inválido", required: "Informe seu CPF" },
    "customer.email": { invalid: "E-mail inválido", required: "Informe seu e-mail" },
    "customer.phone": {
      invalid: "Telefone inválido: informe DDD e número",
      required: "Informe seu telefone com DDD",
    },
    "customer.address": { invalid: "Endereço inválido", required: "Informe seu endereço" },
    "customer.address.street": {
      invalid: "Rua inválida",
      required: "Informe a rua",
      tooLong: "Rua muito longa: use até {max} caracteres",
    },
    "customer.address.number": {
      invalid: "Número inválido",
      required: "Informe o número",
      tooLong: "Número muito longo: use até {max} caracteres",
    },
    "customer.address.zipCode": { invalid: "CEP deve ter 8 dígitos", required: "Informe o CEP" },
    "customer.address.city": {
      invalid: "Cidade inválida",
      required: "Informe a cidade",
      tooLong: "Cidade muito longa: use até {max} caracteres",
    },
    "customer.address.state": { invalid: "Estado (UF) inválido", required: "Informe o estado (UF)" },
    "customer.address.complement": {
      invalid: "Complemento inválido",
      tooLong: "Complemento muito longo: use até {max} caracteres",
    },
    "customer.address.neighborhood": {
      invalid: "Bairro inválido",
      required: "Informe o bairro",
      tooLong: "Bairro muito longo: use até {max} caracteres",
    },
    card: { invalid: "Confira os dados do cartão", required: "Informe os dados do cartão" },
    "card.token": { invalid: "Cartão inválido: digite os dados do cartão de novo" },
    "card.holderName": {
      invalid: "Nome do titular inválido",
      required: "Informe o nome impresso no cartão",
      tooLong: "Nome do titular muito longo: use até {max} caracteres",
    },
    "card.number": { invalid: "Número do cartão inválido", required: "Informe o número do cartão" },
    "card.expirationMonth": {
      invalid: "Mês de validade inválido: use de 01 a 12",
      required: "Informe o mês de validade",
    },
    "card.expirationYear": {
      invalid: "Ano de validade inválido: use 4 dígitos",
      required: "Informe o ano de validade",
      expired: "Cartão vencido: use outro cartão",
    },
    "card.cvv": {
      invalid: "Código de segurança (CVV) inválido",
      required: "Informe o código de segurança (CVV)",
    },
    "card.installments": {
      invalid: "Número de parcelas inválido: escolha de 1 a 12",
      required: "Escolha o número de parcelas",
    },
    pixKey: { invalid: "Chave PIX inválida", required: "Informe a chave PIX" },
  },
  fixFields: "Confira os campos destacados.",
  fallback: "Não foi possível concluir o pagamento. Tente de novo em alguns minutos.",
};

/** The texts in English. */
export const SHOPPER_MESSAGES_EN: ShopperCatalog = {
  codes: {
    INVALID_DATA:
      "The payment could not start because of a problem on the store's side. Try again later or contact the store.",
    REJECTED_BY_RISK:
      "The payment was not approved by the security check. Please use another payment method.",
    PAYER_LIMIT_REJECTED: "Card declined: insufficient funds, try another card.",
    INVALID_CVV: "Card declined: wrong security code (CVV). Check it and try again.",
    PROVIDER_ERROR: "The card network did not answer. Try again in a few minutes.",
    INSUFFICIENT_FUNDS: "Not enough balance for this transfer. Try a smaller amount.",
    INVALID_PIX_KEY: "Invalid or unknown PIX key. Check the key and try again.",
    BEYOND_LIMITS:
      "The amount is above the limit allowed at this time of day. Try a smaller amount or later.",
    TEMPORARY_UNAVAILABLE: "The payment service is unavailable right now. Try again in a few minutes.",
    PROVIDER_REJECTED: "The bank refused the operation. Check your details or use another payment method.",
    UNAUTHORIZED: "The store could not reach the payment service. Please contact the store.",
    KYC_NOT_APPROVED: "This store cannot take payments yet. Please contact the store.",
    CREDIT_CARD_NOT_ENABLED:
      "This store does not take credit cards yet. Please choose another payment method.",
    NOT_FOUND: "Payment not found. Reload the page and try again.",
    METHOD_NOT_ALLOWED:
      "The payment could not be processed because of a problem on the store's side. Please contact the store.",
    PAYLOAD_TOO_LARGE:
      "The payment could not be processed because of a problem on the store's side. Please contact the store.",
    UNSUPPORTED_MEDIA_TYPE:
      "The payment could not be processed because of a problem on the store's side. Please contact the store.",
    RATE_LIMITED: "Too many attempts in a short time. Wait a moment and try again.",
    INTERNAL_ERROR: "Something went wrong in the payment service. Try again in a few minutes.",
    CHALLENGE_EXPIRED:
      "The time to confirm the purchase with your bank ran out. Please place the order again.",
    CHALLENGE_TIMEOUT: "The confirmation with your bank did not finish in time. Please try again.",
    CHALLENGE_UNAVAILABLE: "This confirmation is no longer available. Check your order's status.",
    CHALLENGE_FAILED: "The confirmation with your bank could not be completed. Please try again.",
    SCRIPT_LOAD_FAILED: "Your bank's confirmation could not open. Check your connection and try again.",
    SCRIPT_TIMEOUT: "Your bank's confirmation could not open. Check your connection and try again.",
    SDK_MISSING: "Your bank's confirmation could not open. Please try again later.",
  },
  fields: {
    customer: { invalid: "Check your details", required: "Fill in your details" },
    "customer.name": {
      invalid: "Invalid name",
      required: "Enter your name",
      tooLong: "Name too long: use at most {max} characters",
    },
    "customer.document": { invalid: "Invalid CPF", required: "Enter your CPF" },
    "customer.email": { invalid: "Invalid e-mail address", required: "Enter your e-mail address" },
    "customer.phone": {
      invalid: "Invalid phone number: include the area code",
      required: "Enter your phone number with the area code",
    },
    "customer.address": { invalid: "Invalid address", required: "Enter your address" },
    "customer.address.street": {
      invalid: "Invalid street",
      required: "Enter the street",
      tooLong: "Street too long: use at most {max} characters",
    },
    "customer.address.number": {
      invalid: "Invalid number",
      required: "Enter the number",
      tooLong: "Number too long: use at most {max} characters",
    },
    "customer.address.zipCode": { invalid: "CEP must have 8 digits", required: "Enter the CEP" },
    "customer.address.city": {
      invalid: "Invalid city",
      required: "Enter the city",
      tooLong: "City too long: use at most {max} characters",
    },
    "customer.address.state": { invalid: "Invalid state (UF)", required: "Enter the state (UF)" },
    "customer.address.complement": {
      invalid: "Invalid address complement",
      tooLong: "Complement too long: use at most {max} characters",
    },
    "customer.address.neighborhood": {
      invalid: "Invalid neighborhood",
      required: "Enter the neighborhood",
      tooLong: "Neighborhood too long: use at most {max} characters",
    },
    card: { invalid: "Check the card details", required: "Enter the card details" },
    "card.token": { invalid: "Invalid card: enter the card details again" },
    "card.holderName": {
      invalid: "Invalid cardholder name",
      required: "Enter the name printed on the card",
      tooLong: "Cardholder name too long: use at most {max} characters",
    },
    "card.number": { invalid: "Invalid card number", required: "Enter the card number" },
    "card.expirationMonth": {
      invalid: "Invalid expiry month: use 01 to 12",
      required: "Enter the expiry month",
    },
    "card.expirationYear": {
      invalid: "Invalid expiry year: use 4 digits",
      required: "Enter the expiry year",
      expired: "This card has expired: use another card",
    },
    "card.cvv": { invalid: "Invalid security code (CVV)", required: "Enter the security code (CVV)" },
    "card.installments": {
      invalid: "Invalid number of installments: choose 1 to 12",
      required: "Choose the number of installments",
    },
    pixKey: { invalid: "Invalid PIX key", required: "Enter the PIX key" },
  },
  fixFields: "Check the highlighted fields.",
  fallback: "The payment could not be completed. Try again in a few minutes.",
};

/**
 * Turns a failed payment request into what a checkout form shows the shopper: one message for the
 * form, one per field the shopper typed (keyed by the error's `details[].path`), and what they can do
 * next, in Brazilian Portuguese (the default) or English. Takes a `PaykitApiError` or
 * `PaykitValidationError` of `@paykit/node`, the service's error body `{ code, message, details }` as
 * your backend passed it on, or a `PaykitThreeDSError` of `@paykit/browser`; anything else gets the
 * general message. The error's own `message` (English, for developers) is never shown.
 * @example
 * const { message, fields } = formatPaymentError(await response.json(), { locale: navigator.language });
 * // { message: "CPF inválido", fields: { "customer.document": "CPF inválido" }, action: "fix-fields", … }
 */
export function formatPaymentError(
  error: unknown,
  options: FormatPaymentErrorOptions = {},
): ShopperErrorMessage {
  const catalog = catalogFor(options);
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    details?: unknown;
  };
  const code = typeof e.code === "string" && e.code !== "" ? e.code : "UNKNOWN_ERROR";
  const fields: Record<string, string> = {};
  for (const detail of Array.isArray(e.details) ? e.details : []) {
    const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown };
    if (typeof path !== "string" || Object.hasOwn(fields, path) || !Object.hasOwn(catalog.fields, path))
      continue;
    fields[path] = fieldText(catalog.fields[path]!, typeof message === "string" ? message : "");
  }
  const implied = Object.hasOwn(CODE_FIELDS, code) ? CODE_FIELDS[code] : undefined;
  if (implied && Object.keys(fields).length === 0) fields[implied] = catalog.fields[implied]!.invalid;

  const count = Object.keys(fields).length;
  const codeMessage = Object.hasOwn(catalog.codes, code) ? catalog.codes[code] : undefined;
  // A refusal with its own words (a wrong CVV) keeps them; an INVALID_DATA the shopper can fix says what to fix.
  if (count > 0 && (code === "INVALID_DATA" || codeMessage === undefined)) {
    const message = count === 1 ? Object.values(fields)[0]! : catalog.fixFields;
    return { message, fields, action: "fix-fields", code };
  }
  return {
    message: codeMessage ?? catalog.fallback,
    fields,
    action: count > 0 ? "fix-fields" : (Object.hasOwn(ACTIONS, code) && ACTIONS[code]) || "try-again",
    code,
  };
}

type ResolvedCatalog = Omit<ShopperCatalog, "codes" | "fields"> & {
  codes: Record<string, string>;
  fields: Record<string, ShopperFieldText>;
};

function catalogFor({ locale, messages }: FormatPaymentErrorOptions): ResolvedCatalog {
  const base = /^en(-|$)/i.test(locale ?? "") ? SHOPPER_MESSAGES_EN : SHOPPER_MESSAGES_PT_BR;
  if (!messages) return base;
  const fields: Record<string, ShopperFieldText> = { ...base.fields };
  for (const [path, text] of Object.entries(messages.fields ?? {})) {
    const own = Object.hasOwn(fields, path) ? fields[path] : undefined;
    const invalid = text?.invalid ?? own?.invalid;
    if (invalid !== undefined) fields[path] = { ...own, ...text, invalid };
  }
  return {
    codes: { ...base.codes, ...(messages.codes as Record<string, string>) },
    fields,
    fixFields: messages.fixFields ?? base.fixFields,
    fallback: messages.fallback ?? base.fallback,
  };
}

// Reads the service's English detail message (docs/payins.md, "Messages for shoppers") only to pick
// which text of the field fits; a message it does not recognize gets the field's `invalid` text.
function fieldText(text: ShopperFieldText, detail: string): string {
  if (/\brequired\b|must not be empty/i.test(detail)) return text.required ?? text.invalid;
  if (/expired|in the past/i.test(detail)) return text.expired ?? text.invalid;
  const max = /at most (\d+) characters/i.exec(detail)?.[1];
  if (max !== undefined && text.tooLong !== undefined) return text.tooLong.replace("{max}", max);
  return text.invalid;
}
