import { describe, expect, it } from "vitest";
import { compiled, PayinCreateParams, validate } from "../src/index.js";
import { card, customer, payins, withField } from "./fixtures.js";

const methods = Object.keys(payins) as Array<keyof typeof payins>;

function failure(body: unknown) {
  const result = validate(PayinCreateParams, body);
  if (result.success) throw new Error("expected the request to be refused");
  return result;
}

describe("POST /payin request: every method's shape is accepted", () => {
  it.each(methods)("%s", (method) => {
    expect(validate(PayinCreateParams, payins[method])).toMatchObject({ success: true });
  });

  it("a card given by token replaces the card data", () => {
    const body = withField(payins.CREDIT_CARD, "card", { token: "tok_123", installments: 3 });
    expect(validate(PayinCreateParams, body)).toMatchObject({ success: true });
  });

  it("OPEN_FINANCE accepts a customer with an address too", () => {
    const body = withField(payins.OPEN_FINANCE, "customer", customer);
    expect(validate(PayinCreateParams, body)).toMatchObject({ success: true });
  });

  it("optional fields of the spec are accepted", () => {
    const body = {
      ...payins.PIX,
      webhookUrl: "https://merchant.example/webhooks",
      antifraud: { sessionId: "af-1" },
      subSellerId: "seller-9",
      split: [{ recipient: "acc_1", percentage: 10 }],
      items: [{ title: "Livro", quantity: 1, unitPrice: 10000, description: "Capa dura" }],
    };
    expect(validate(PayinCreateParams, body)).toMatchObject({ success: true });
  });
});

const REQUIRED = [
  "paymentMethod",
  "amount",
  "referenceId",
  "isPhysicalProduct",
  "payerIp",
  "customer",
  "items",
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
  "items.0.title",
  "items.0.quantity",
  "items.0.unitPrice",
];

describe("POST /payin request: every required field missing in turn is INVALID_DATA naming it", () => {
  it.each(REQUIRED)("%s", (path) => {
    const result = failure(withField(payins.PIX, path, undefined));
    expect(result.code).toBe("INVALID_DATA");
    expect(result.details).toContainEqual({
      path: path === "paymentMethod" ? "paymentMethod" : path,
      message: expect.stringMatching(/required|must be one of/),
    });
  });

  it.each(["holderName", "number", "expirationMonth", "expirationYear", "cvv", "installments"])(
    "card.%s (card data without a token)",
    (field) => {
      const result = failure(withField(payins.CREDIT_CARD, `card.${field}`, undefined));
      expect(result.details).toEqual([{ path: `card.${field}`, message: "is required" }]);
    },
  );

  it("card on a CREDIT_CARD payin", () => {
    expect(failure(withField(payins.CREDIT_CARD, "card", undefined)).details).toEqual([
      { path: "card", message: "is required" },
    ]);
  });
});

const BROKEN: Array<[string, string, unknown]> = [
  ["a CPF with a wrong check digit", "customer.document", "52998224726"],
  ["a CPF with punctuation", "customer.document", "529.982.247-25"],
  ["a CPF of repeated digits", "customer.document", "11111111111"],
  ["a phone without the 55 prefix", "customer.phone", "11987654321"],
  ["a phone with punctuation", "customer.phone", "+55 11 98765-4321"],
  ["a CEP of 7 digits", "customer.address.zipCode", "0131010"],
  ["a CEP with a dash", "customer.address.zipCode", "01310-100"],
  ["an unknown UF", "customer.address.state", "XX"],
  ["a lower-case UF", "customer.address.state", "sp"],
  ["an IPv6 payer address", "payerIp", "2001:db8::1"],
  ["an IPv4 with an octet over 255", "payerIp", "256.1.1.1"],
  ["an e-mail without a domain", "customer.email", "ana@"],
  ["a zero amount", "amount", 0],
  ["a negative amount", "amount", -100],
  ["a fractional amount", "amount", 10.5],
  ["an amount as a string", "amount", "10000"],
  ["isPhysicalProduct as a string", "isPhysicalProduct", "true"],
  ["no items", "items", []],
  ["an item of quantity 0", "items.0.quantity", 0],
  ["a fractional unit price", "items.0.unitPrice", 1.5],
  ["an empty referenceId", "referenceId", ""],
  ["a referenceId over 100 characters", "referenceId", "r".repeat(101)],
  ["a name of a megabyte", "customer.name", "n".repeat(1_000_000)],
  ["a webhookUrl that is not http(s)", "webhookUrl", "ftp://merchant.example/hook"],
  ["a relative webhookUrl", "webhookUrl", "/webhooks"],
  ["an unknown paymentMethod", "paymentMethod", "BITCOIN"],
];

describe("POST /payin request: every rule broken in turn is INVALID_DATA naming the field", () => {
  it.each(BROKEN)("%s", (_rule, path, value) => {
    const result = failure(withField(payins.PIX, path, value));
    expect(result.code).toBe("INVALID_DATA");
    expect(result.details.map((d) => d.path)).toEqual([path === "items" ? "items" : path]);
  });

  it.each([
    ["a 9-digit number that does not start with 9", "5511887654321"],
    ["10 digits after the area code", "55119876543210"],
  ])("a phone with %s says what a phone is", (_rule, phone) => {
    expect(failure(withField(payins.PIX, "customer.phone", phone)).details).toEqual([
      {
        path: "customer.phone",
        message:
          "must be 55 + area code + number, digits only (12 or 13 digits; a 9-digit number starts with 9)",
      },
    ]);
  });

  it.each([
    ["amount", 149.9],
    ["amount", "14990"],
    ["items.0.unitPrice", 149.9],
  ])("%s = %j says amounts are integer cents, with an example", (path, value) => {
    expect(failure(withField(payins.PIX, path, value)).details).toEqual([
      { path, message: "must be an integer in cents (14990 = R$ 149,90)" },
    ]);
  });

  it('a missing amount is still "is required"', () => {
    expect(failure(withField(payins.PIX, "amount", undefined)).details).toEqual([
      { path: "amount", message: "is required" },
    ]);
  });

  const CARD_BROKEN: Array<[string, string, unknown]> = [
    ["a card number failing Luhn", "number", "4111111111111112"],
    ["a card number with spaces", "number", "4111 1111 1111 1111"],
    ["a card number of 12 digits", "number", "411111111111"],
    ["month 13", "expirationMonth", "13"],
    ["a one-digit month", "expirationMonth", "1"],
    ["a two-digit year", "expirationYear", "30"],
    ["an expired card", "expirationYear", "2020"],
    ["a CVV of 2 digits", "cvv", "12"],
    ["0 installments", "installments", 0],
    ["13 installments", "installments", 13],
  ];
  it.each(CARD_BROKEN)("card: %s", (_rule, field, value) => {
    const result = failure(withField(payins.CREDIT_CARD, `card.${field}`, value));
    expect(result.details.map((d) => d.path)).toEqual([`card.${field}`]);
  });

  it("an unknown field is named", () => {
    expect(failure({ ...payins.PIX, referenceID: "typo" }).details).toEqual([
      { path: "referenceID", message: "is not a known field" },
    ]);
  });

  it("card data is refused on a PIX payin", () => {
    expect(failure({ ...payins.PIX, card }).details).toEqual([
      { path: "card", message: "is not a known field" },
    ]);
  });

  it("a body that is not an object", () => {
    expect(failure("PIX").details).toEqual([{ path: "", message: "must be an object" }]);
    expect(failure(null).code).toBe("INVALID_DATA");
  });

  it("reports every failing path at once", () => {
    const body = withField(withField(payins.PIX, "amount", -1), "customer.document", "123");
    expect(
      failure(body)
        .details.map((d) => d.path)
        .sort(),
    ).toEqual(["amount", "customer.document"]);
  });

  it("never echoes card data in a message", () => {
    const body = withField(payins.CREDIT_CARD, "card.number", "4111111111111112");
    const result = failure(withField(body, "card.cvv", "9"));
    expect(JSON.stringify(result)).not.toMatch(/4111111111111112|"9"/);
  });
});

describe("compiled(): the fast path gives the same answers", () => {
  const cases: Array<[string, unknown]> = [
    ["a valid PIX payin", payins.PIX],
    ["a valid card payin", payins.CREDIT_CARD],
    ["a wrong CPF", withField(payins.PIX, "customer.document", "52998224726")],
    ["a missing amount", withField(payins.BOLETO, "amount", undefined)],
    ["an unknown field", { ...payins.PIX, referenceID: "typo" }],
    ["an expired card", withField(payins.CREDIT_CARD, "card.expirationYear", "2020")],
    ["not an object", "PIX"],
  ];
  it.each(cases)("%s", (_case, body) => {
    expect(validate(compiled(PayinCreateParams), body)).toEqual(validate(PayinCreateParams, body));
  });

  it("is memoised per schema", () => {
    expect(compiled(PayinCreateParams)).toBe(compiled(PayinCreateParams));
  });
});
