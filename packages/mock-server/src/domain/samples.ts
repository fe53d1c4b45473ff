import type {
  CardData,
  Customer,
  Item,
  PayinCreateParams,
  PaymentMethod,
  PayoutCreateParams,
} from "@paykit/contract";

/** A paying customer the mock accepts: a valid CPF, a São Paulo phone and address. */
export const SAMPLE_CUSTOMER: Customer = {
  name: "Maria da Silva",
  document: "12345678909",
  email: "maria@example.com",
  phone: "5511987654321",
  address: { street: "Rua Augusta", number: "100", zipCode: "01305000", city: "São Paulo", state: "SP" },
};

/** One digital item of R$ 100,00 (amounts are integer cents). */
export const SAMPLE_ITEMS: Item[] = [{ title: "Plano mensal", quantity: 1, unitPrice: 10_000 }];

/** A test card the mock approves at once (`4111111111111111`); see `MAGIC_CARDS` for the other outcomes. */
export const SAMPLE_CARD: CardData = {
  holderName: "MARIA DA SILVA",
  number: "4111111111111111",
  expirationMonth: "12",
  expirationYear: "2099",
  cvv: "123",
  installments: 1,
};

/** The payin request of one payment method. */
export type PayinCreateParamsFor<M extends PaymentMethod> = Extract<PayinCreateParams, { paymentMethod: M }>;

let sequence = 0;

/** A fresh merchant reference, unique within the process (`order-1-k3f9q2`). */
export function sampleReferenceId(prefix = "order"): string {
  sequence += 1;
  return `${prefix}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * A valid payin request of `method` for tests, with a fresh `referenceId`; `overrides` replace
 * top-level fields (a magic card, an amount, a `webhookUrl`). OPEN_FINANCE leaves the address out, as
 * the spec's example does.
 *
 * @example
 * ```ts
 * const payin = await paykit.payins.create(samplePayin("PIX", { amount: 2_500, webhookUrl }));
 * const refused = samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number: "4000000000000002" } });
 * ```
 */
export function samplePayin<M extends PaymentMethod>(
  method: M,
  overrides: Partial<PayinCreateParamsFor<M>> = {},
): PayinCreateParamsFor<M> {
  const { address, ...withoutAddress } = SAMPLE_CUSTOMER;
  const common = {
    paymentMethod: method,
    amount: 10_000,
    referenceId: sampleReferenceId(method.toLowerCase()),
    isPhysicalProduct: false,
    payerIp: "200.100.50.25",
    customer: method === "OPEN_FINANCE" ? withoutAddress : { ...withoutAddress, address },
    items: SAMPLE_ITEMS.map((item) => ({ ...item })),
  };
  const extra =
    method === "CREDIT_CARD"
      ? { card: { ...SAMPLE_CARD } }
      : method === "OPEN_FINANCE"
        ? { bankId: "001" }
        : {};
  return { ...common, ...extra, ...overrides } as PayinCreateParamsFor<M>;
}

/**
 * A valid payout request for tests: R$ 50,00 to a PIX key of the mock's directory
 * (`maria.santos@example.com`), with a fresh `referenceId`.
 */
export function samplePayout(overrides: Partial<PayoutCreateParams> = {}): PayoutCreateParams {
  return {
    amount: 5_000,
    pixKey: "maria.santos@example.com",
    pixKeyType: "EMAIL",
    referenceId: sampleReferenceId("payout"),
    ...overrides,
  };
}
