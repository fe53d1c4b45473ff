/** Valid requests of every method, straight from the spec's tables; tests break one rule at a time. */
export const customer = {
  name: "Ana Souza",
  document: "52998224725",
  email: "ana@example.com",
  phone: "5511987654321",
  address: { street: "Av. Paulista", number: "1000", zipCode: "01310100", city: "São Paulo", state: "SP" },
};

const common = {
  amount: 10000,
  referenceId: "order-1001",
  isPhysicalProduct: true,
  payerIp: "189.12.34.56",
  customer,
  items: [{ title: "Camiseta", quantity: 2, unitPrice: 5000 }],
};

export const card = {
  holderName: "ANA SOUZA",
  number: "4111111111111111",
  expirationMonth: "12",
  expirationYear: String(new Date().getFullYear() + 2),
  cvv: "123",
  installments: 1,
};

export const payins = {
  PIX: { paymentMethod: "PIX", ...common },
  BOLETO: { paymentMethod: "BOLETO", ...common },
  CREDIT_CARD: { paymentMethod: "CREDIT_CARD", ...common, card },
  OPEN_FINANCE: {
    paymentMethod: "OPEN_FINANCE",
    ...common,
    bankId: "001",
    customer: {
      name: customer.name,
      document: customer.document,
      email: customer.email,
      phone: customer.phone,
    },
  },
} as const;

export const payout = {
  amount: 5000,
  pixKey: "ana@example.com",
  pixKeyType: "EMAIL",
  referenceId: "payout-1",
} as const;

/** A deep copy of `value` with `path` set to `replacement` (or removed when it is `undefined`). */
export function withField(value: unknown, path: string, replacement: unknown): Record<string, unknown> {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = path.split(".");
  let target: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = keys.at(-1)!;
  if (replacement === undefined) delete target[last];
  else target[last] = replacement;
  return copy;
}
