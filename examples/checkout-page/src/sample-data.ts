import type { Customer, Item } from "@paykit/contract";

/**
 * The demo's paying customer: a valid CPF, a São Paulo phone and address (docs/decisions/customer.md).
 */
export const DEMO_CUSTOMER: Customer = {
  name: "Maria Santos",
  document: "12345678909",
  email: "maria.santos@example.com",
  phone: "5511987654321",
  address: {
    street: "Avenida Paulista",
    number: "1000",
    zipCode: "01310100",
    city: "São Paulo",
    state: "SP",
    neighborhood: "Bela Vista",
  },
};

/** The demo's order: one digital item of R$ 149,90 (amounts are integer cents). */
export const DEMO_ITEMS: Item[] = [{ title: "Curso de TypeScript", quantity: 1, unitPrice: 14_990 }];

/** The order total in cents. */
export const DEMO_AMOUNT = 14_990;

/** The payer's IPv4 when the request carries none a merchant could trust (the demo runs on loopback). */
export const DEMO_PAYER_IP = "177.10.20.30";

/**
 * The mock's magic card numbers (docs/decisions/magic-values.md): the page offers them so each outcome
 * can be tried. The CVV and expiry are test values; card data only ever travels to the payment API.
 */
export const DEMO_CARDS = {
  approved: "4111111111111111",
  refused: "4000000000000002",
  threeDS: "4000000000003220",
  wrongCvv: "4000000000000127",
} as const;

/** A PIX key of the mock's directory that payouts can reach (EMAIL, settles normally). */
export const DEMO_PAYOUT_KEY = { pixKey: "payouts@example.com", pixKeyType: "EMAIL" } as const;
