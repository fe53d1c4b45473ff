import { createMockServer, type MockControl } from "@paykit/mock-server";
import { Paykit } from "@paykit/node";
import { type CheckoutBackend, startCheckoutBackend } from "./backend.js";

/**
 * The demo merchant's fixed test credentials, like `paykit-mock --default-keys PK:SK`: fixed so the
 * printed curl lines and the docs stay valid from run to run. Test keys only (`_test_`), never live.
 */
export const DEMO_KEYS = {
  publicKey: "pk_test_paykitdemo0000000000000001",
  secretKey: "sk_test_paykitdemo0000000000000001",
  webhookSecret: "whsec_cGF5a2l0LWRlbW8td2ViaG9vay1zaWduaW5nLWtleSE=",
} as const;

/** Opening balance of the demo merchant in cents (R$ 10.000,00), so payouts work at once. */
export const DEMO_OPENING_BALANCE = 1_000_000;

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /**
   * Whether payouts move on their own (one step per second, like the real service) or only through
   * the control API, which the headless run prefers. @default true
   */
  autoAdvance?: boolean;
  /** Port of the merchant backend; 0 picks a free one. @default 0 */
  backendPort?: number;
  /** Port of the mock server; 0 picks a free one. @default 0 */
  mockPort?: number;
  /** Where the backend logs its payins, payouts and webhooks. @default console.log */
  log?: (line: string) => void;
}

/** The running demo: the mock service, the merchant's client and backend. */
export interface Demo {
  /** The mock payment service's base URL (API, `/_mock` control API and dashboard). */
  mockUrl: string;
  /** The mock's control API (the payer's and the bank's side: pay, authorize, advance). */
  mockControl: MockControl;
  /** The merchant backend (checkout page, JSON API, webhook endpoint). */
  backend: CheckoutBackend;
  /** The merchant's Paykit client, on the demo account's keys. */
  paykit: Paykit;
  /** The demo merchant's account id at the mock. */
  accountId: string;
  /** Stops the backend, then the mock. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the mock service with the demo merchant's account (fixed keys, a webhook secret so every
 * delivery is signed) and the example merchant backend on loopback.
 *
 * @example
 * ```ts
 * await using demo = await startDemo();
 * console.log(`checkout: ${demo.backend.url}`);
 * ```
 */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const mock = await createMockServer({ port: options.mockPort ?? 0 });
  try {
    const account = await mock.control.createAccount({
      publicKey: DEMO_KEYS.publicKey,
      secretKey: DEMO_KEYS.secretKey,
      webhookSecret: DEMO_KEYS.webhookSecret,
      balance: DEMO_OPENING_BALANCE,
      autoAdvance: options.autoAdvance ?? true,
    });
    const paykit = new Paykit({
      publicKey: DEMO_KEYS.publicKey,
      secretKey: DEMO_KEYS.secretKey,
      baseUrl: mock.url,
      webhookSecret: DEMO_KEYS.webhookSecret,
    });
    const backend = await startCheckoutBackend({
      paykit,
      webhookSecret: DEMO_KEYS.webhookSecret,
      devMockUrl: mock.url,
      // The mock is also the card issuer: its 3DS script and challenge page are on its origin.
      threeDSOrigins: [mock.url],
      port: options.backendPort ?? 0,
      ...(options.log ? { log: options.log } : {}),
    });
    const close = async () => {
      await backend.close();
      await mock.close();
    };
    return {
      mockUrl: mock.url,
      mockControl: mock.control,
      backend,
      paykit,
      accountId: account.accountId,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await mock.close();
    throw error;
  }
}
