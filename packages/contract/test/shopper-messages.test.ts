import { describe, expect, it } from "vitest";
import {
  Address,
  CardData,
  CardToken,
  Customer,
  ERROR_CODES,
  PayinCreateParams,
  PayoutCreateParams,
  validate,
} from "../src/index.js";
import {
  formatPaymentError,
  SHOPPER_FIELD_PATHS,
  SHOPPER_MESSAGES_EN,
  SHOPPER_MESSAGES_PT_BR,
} from "../src/messages.js";
import { card, payins, payout, withField } from "./fixtures.js";

/** The service's error for a request body, exactly as the mock (and this package's validate) answers it. */
function refusal(schema: typeof PayinCreateParams | typeof PayoutCreateParams, body: unknown) {
  const result = validate(schema, body);
  if (result.success) throw new Error("expected the request to be refused");
  return { code: result.code, message: result.message, details: result.details };
}

const cardPayin = payins.CREDIT_CARD;

describe("formatPaymentError: each field the shopper typed, from the service's own INVALID_DATA", () => {
  it.each([
    ["an invalid CPF", "customer.document", "52998224700", "CPF inválido", "Invalid CPF"],
    [
      "a CEP of 7 digits",
      "customer.address.zipCode",
      "0131010",
      "CEP deve ter 8 dígitos",
      "CEP must have 8 digits",
    ],
    ["a missing name", "customer.name", undefined, "Informe seu nome", "Enter your name"],
    ["an empty name", "customer.name", "", "Informe seu nome", "Enter your name"],
    [
      "a name of 201 characters",
      "customer.name",
      "a".repeat(201),
      "Nome muito longo: use até 200 caracteres",
      "Name too long: use at most 200 characters",
    ],
    ["an invalid e-mail", "customer.email", "ana@", "E-mail inválido", "Invalid e-mail address"],
    [
      "a phone without the country code",
      "customer.phone",
      "11987654321",
      "Telefone inválido: informe DDD e número",
      "Invalid phone number: include the area code",
    ],
    ["an unknown state", "customer.address.state", "XX", "Estado (UF) inválido", "Invalid state (UF)"],
    ["a missing street", "customer.address.street", undefined, "Informe a rua", "Enter the street"],
    ["a missing address", "customer.address", undefined, "Informe seu endereço", "Enter your address"],
    [
      "a card number failing Luhn",
      "card.number",
      "4111111111111112",
      "Número do cartão inválido",
      "Invalid card number",
    ],
    [
      "month 13",
      "card.expirationMonth",
      "13",
      "Mês de validade inválido: use de 01 a 12",
      "Invalid expiry month: use 01 to 12",
    ],
    [
      "an expired card",
      "card.expirationYear",
      "2020",
      "Cartão vencido: use outro cartão",
      "This card has expired: use another card",
    ],
    [
      "a CVV of 2 digits",
      "card.cvv",
      "12",
      "Código de segurança (CVV) inválido",
      "Invalid security code (CVV)",
    ],
    [
      "13 installments",
      "card.installments",
      13,
      "Número de parcelas inválido: escolha de 1 a 12",
      "Invalid number of installments: choose 1 to 12",
    ],
    [
      "a missing holder name",
      "card.holderName",
      undefined,
      "Informe o nome impresso no cartão",
      "Enter the name printed on the card",
    ],
  ])("%s: the %s field", (_, path, value, ptBR, en) => {
    const error = refusal(PayinCreateParams, withField(cardPayin, path, value));
    expect(formatPaymentError(error)).toEqual({
      message: ptBR,
      fields: { [path]: ptBR },
      action: "fix-fields",
      code: "INVALID_DATA",
    });
    expect(formatPaymentError(error, { locale: "en" })).toMatchObject({
      message: en,
      fields: { [path]: en },
    });
  });

  it("several wrong fields: one message each, and the form's message asks to check them", () => {
    const body = withField(withField(cardPayin, "customer.document", "123"), "card.cvv", "1");
    expect(formatPaymentError(refusal(PayinCreateParams, body))).toEqual({
      message: "Confira os campos destacados.",
      fields: { "customer.document": "CPF inválido", "card.cvv": "Código de segurança (CVV) inválido" },
      action: "fix-fields",
      code: "INVALID_DATA",
    });
  });

  it("a token card the acquirer does not know asks for the card again", () => {
    const body = withField(cardPayin, "card", { token: "", installments: 1 });
    expect(formatPaymentError(refusal(PayinCreateParams, body)).fields).toEqual({
      "card.token": "Cartão inválido: digite os dados do cartão de novo",
    });
  });

  it("a payout's malformed PIX key is the pixKey field", () => {
    const error = refusal(PayoutCreateParams, { ...payout, pixKey: "not-an-email" });
    expect(error.code).toBe("INVALID_PIX_KEY");
    expect(formatPaymentError(error)).toEqual({
      message: "Chave PIX inválida ou não encontrada. Confira a chave e tente de novo.",
      fields: { pixKey: "Chave PIX inválida" },
      action: "fix-fields",
      code: "INVALID_PIX_KEY",
    });
  });

  it.each([
    ["a referenceId with a control character", "referenceId", "order\u0000"],
    ["no items", "items", []],
    ["a quantity of 0", "items.0.quantity", 0],
    ["a webhookUrl that is no URL", "webhookUrl", "not a url"],
    ["a field the schema does not know", "customer.cpf", "52998224725"],
  ])("%s is the store's mistake: no field for the shopper, and the store must act", (_, path, value) => {
    const error = refusal(PayinCreateParams, withField(cardPayin, path, value));
    expect(formatPaymentError(error)).toEqual({
      message: SHOPPER_MESSAGES_PT_BR.codes.INVALID_DATA,
      fields: {},
      action: "contact-store",
      code: "INVALID_DATA",
    });
  });
});

describe("formatPaymentError: every error code of the service has a message and a next step", () => {
  it.each([
    ["INVALID_DATA", "contact-store"],
    ["REJECTED_BY_RISK", "change-payment"],
    ["PAYER_LIMIT_REJECTED", "change-payment"],
    ["INVALID_CVV", "fix-fields"],
    ["PROVIDER_ERROR", "try-again"],
    ["INSUFFICIENT_FUNDS", "change-amount"],
    ["INVALID_PIX_KEY", "fix-fields"],
    ["BEYOND_LIMITS", "change-amount"],
    ["TEMPORARY_UNAVAILABLE", "try-again"],
    ["PROVIDER_REJECTED", "change-payment"],
    ["UNAUTHORIZED", "contact-store"],
    ["KYC_NOT_APPROVED", "contact-store"],
    ["CREDIT_CARD_NOT_ENABLED", "change-payment"],
    ["NOT_FOUND", "try-again"],
    ["METHOD_NOT_ALLOWED", "contact-store"],
    ["PAYLOAD_TOO_LARGE", "contact-store"],
    ["UNSUPPORTED_MEDIA_TYPE", "contact-store"],
    ["RATE_LIMITED", "try-again"],
    ["INTERNAL_ERROR", "try-again"],
  ] as const)("%s → %s, in both languages", (code, action) => {
    const developers = "the developer's English message";
    for (const [locale, catalog] of [
      ["pt-BR", SHOPPER_MESSAGES_PT_BR],
      ["en", SHOPPER_MESSAGES_EN],
    ] as const) {
      const shown = formatPaymentError({ code, message: developers }, { locale });
      expect(shown).toMatchObject({ message: catalog.codes[code], action, code });
      expect(shown.message).not.toBe(developers);
      expect(shown.message).not.toBe(catalog.fallback);
    }
  });

  it("the table above lists every code of ERROR_CODES", () => {
    expect(ERROR_CODES.filter((code) => !(code in SHOPPER_MESSAGES_PT_BR.codes))).toEqual([]);
    expect(ERROR_CODES.filter((code) => !(code in SHOPPER_MESSAGES_EN.codes))).toEqual([]);
  });

  it.each([
    ["PAYER_LIMIT_REJECTED", "pt-BR", "Cartão recusado: saldo insuficiente, tente outro cartão.", {}],
    ["PAYER_LIMIT_REJECTED", "en", "Card declined: insufficient funds, try another card.", {}],
    [
      "INVALID_CVV",
      "pt-BR",
      "Cartão recusado: código de segurança (CVV) incorreto. Confira e tente de novo.",
      { "card.cvv": "Código de segurança (CVV) inválido" },
    ],
  ])(
    "a card declined with %s (%s) says so and points at the field to fix",
    (code, locale, message, fields) => {
      expect(formatPaymentError({ code, message: "declined" }, { locale })).toMatchObject({
        message,
        fields,
      });
    },
  );

  it.each([
    ["CHALLENGE_EXPIRED", "O tempo para confirmar a compra no seu banco acabou. Faça o pedido de novo."],
    ["CHALLENGE_TIMEOUT", "A confirmação no seu banco não terminou a tempo. Tente de novo."],
    ["CHALLENGE_UNAVAILABLE", "Esta confirmação não está mais disponível. Confira o status do pedido."],
  ])("the browser's 3DS code %s (a PaykitThreeDSError) has its own message", (code, message) => {
    const threeDS = Object.assign(new Error("developer text"), { name: "PaykitThreeDSError", code });
    expect(formatPaymentError(threeDS)).toEqual({ message, fields: {}, action: "try-again", code });
  });
});

describe("formatPaymentError: what it accepts", () => {
  const details = [{ path: "customer.document", message: "must be a valid CPF (11 digits, digits only)" }];
  const expected = { message: "CPF inválido", fields: { "customer.document": "CPF inválido" } };

  it.each([
    ["the service's error body", { code: "INVALID_DATA", message: "customer.document must be…", details }],
    [
      "a PaykitApiError-like error (class, status, body)",
      Object.assign(new Error("customer.document must be… (POST /payin → 400 INVALID_DATA)"), {
        name: "InvalidRequestError",
        status: 400,
        code: "INVALID_DATA",
        details,
        body: "{}",
      }),
    ],
    [
      "an error body whose details carry extra keys",
      { code: "INVALID_DATA", details: [{ ...details[0], x: 1 }] },
    ],
  ])("%s", (_, error) => {
    expect(formatPaymentError(error)).toMatchObject(expected);
  });

  it.each([
    ["null", null],
    ["a string", "INVALID_DATA"],
    ["an Error without a code", new Error("fetch failed")],
    ["a non-string code", { code: 42 }],
    ["an unknown code", { code: "SOMETHING_NEW" }],
    ["an Object.prototype key as code", { code: "constructor" }],
    ["a transport failure of the node client", { code: "CONNECTION_REFUSED" }],
  ])("%s gets the general message and try-again", (_, error) => {
    expect(formatPaymentError(error)).toMatchObject({
      message: SHOPPER_MESSAGES_PT_BR.fallback,
      fields: {},
      action: "try-again",
    });
  });

  it.each([
    ["details that are not an array", { code: "INVALID_DATA", details: "customer.document" }],
    [
      "details without a string path",
      { code: "INVALID_DATA", details: [null, { path: 1 }, { message: "x" }] },
    ],
    [
      "a path named like an Object.prototype key",
      { code: "INVALID_DATA", details: [{ path: "constructor" }] },
    ],
  ])("ignores %s", (_, error) => {
    expect(formatPaymentError(error)).toMatchObject({ fields: {}, action: "contact-store" });
  });

  it("keeps the first message of a path named twice", () => {
    const twice = {
      code: "INVALID_DATA",
      details: [details[0], { path: "customer.document", message: "is required" }],
    };
    expect(formatPaymentError(twice).fields).toEqual({ "customer.document": "CPF inválido" });
  });
});

describe("formatPaymentError: languages and your own texts", () => {
  it.each([
    [undefined, "CPF inválido"],
    ["pt-BR", "CPF inválido"],
    ["pt", "CPF inválido"],
    ["pt-PT", "CPF inválido"],
    ["en", "Invalid CPF"],
    ["en-US", "Invalid CPF"],
    ["EN-gb", "Invalid CPF"],
    ["fr-FR", "CPF inválido"],
    ["english", "CPF inválido"],
  ])("locale %s → %s", (locale, message) => {
    const error = { code: "INVALID_DATA", details: [{ path: "customer.document", message: "x" }] };
    expect(formatPaymentError(error, locale === undefined ? {} : { locale }).message).toBe(message);
  });

  it("your texts replace the language's: a code, a field kind, a new code, the summaries", () => {
    const messages = {
      codes: { PAYER_LIMIT_REJECTED: "Sem limite.", NEW_CODE: "Novo." },
      fields: { "customer.document": { required: "Precisamos do CPF" }, "customer.cpf": { invalid: "CPF?" } },
      fixFields: "Arrume.",
      fallback: "Ops.",
    };
    expect(formatPaymentError({ code: "PAYER_LIMIT_REJECTED" }, { messages }).message).toBe("Sem limite.");
    expect(formatPaymentError({ code: "NEW_CODE" }, { messages }).message).toBe("Novo.");
    expect(formatPaymentError({ code: "OTHER" }, { messages }).message).toBe("Ops.");
    const missing = {
      code: "INVALID_DATA",
      details: [{ path: "customer.document", message: "is required" }],
    };
    expect(formatPaymentError(missing, { messages }).message).toBe("Precisamos do CPF");
    const wrong = {
      code: "INVALID_DATA",
      details: [{ path: "customer.document", message: "must be a valid CPF" }],
    };
    expect(formatPaymentError(wrong, { messages }).message).toBe("CPF inválido");
    // a path of your own form becomes a shopper field once you give its text
    const own = {
      code: "INVALID_DATA",
      details: [
        { path: "customer.cpf", message: "is not a known field" },
        { path: "customer.name", message: "is required" },
      ],
    };
    expect(formatPaymentError(own, { messages })).toMatchObject({
      message: "Arrume.",
      fields: { "customer.cpf": "CPF?", "customer.name": "Informe seu nome" },
    });
    // your texts over English
    expect(formatPaymentError({ code: "NEW_CODE" }, { locale: "en", messages }).message).toBe("Novo.");
    expect(formatPaymentError({ code: "RATE_LIMITED" }, { locale: "en", messages }).message).toBe(
      SHOPPER_MESSAGES_EN.codes.RATE_LIMITED,
    );
  });
});

describe("the field table covers every field of the customer and the card", () => {
  // Paths the shopper types, read from the schemas themselves (the single source of the wire shapes).
  const schemaPaths = [
    ...Object.keys(Customer.shape).map((key) => `customer.${key}`),
    ...Object.keys(Address.shape).map((key) => `customer.address.${key}`),
    ...Object.keys(CardData.shape).map((key) => `card.${key}`),
    ...Object.keys(CardToken.shape).map((key) => `card.${key}`),
  ].filter((path) => path !== "card.threeDSecure"); // the acquirer's opaque 3DS data: nobody types it

  it.each([...new Set(schemaPaths)])("%s has a text in both languages", (path) => {
    expect(SHOPPER_FIELD_PATHS).toContain(path);
    for (const catalog of [SHOPPER_MESSAGES_PT_BR, SHOPPER_MESSAGES_EN]) {
      expect(catalog.fields[path as keyof typeof catalog.fields].invalid).toMatch(/\S/);
    }
  });

  it("both languages have the same fields and codes", () => {
    expect(Object.keys(SHOPPER_MESSAGES_EN.fields).sort()).toEqual(
      Object.keys(SHOPPER_MESSAGES_PT_BR.fields).sort(),
    );
    expect(Object.keys(SHOPPER_MESSAGES_EN.codes).sort()).toEqual(
      Object.keys(SHOPPER_MESSAGES_PT_BR.codes).sort(),
    );
    expect(Object.keys(SHOPPER_MESSAGES_PT_BR.fields).sort()).toEqual([...SHOPPER_FIELD_PATHS].sort());
  });

  it("a valid card payin is not refused (the cases above break one rule each)", () => {
    expect(validate(PayinCreateParams, { ...cardPayin, card })).toMatchObject({ success: true });
  });
});
