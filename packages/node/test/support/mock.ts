import { type CreateEngineOptions, createMockServer, type MockControl } from "@paykit/mock-server";
import { createPaykitMock } from "@paykit/mock-server/msw";
import { setupServer } from "msw/node";
import { Paykit, type PaykitOptions } from "../../src/index.js";

/** How the tests reach the mock service: over real HTTP, or intercepted by msw. */
export type MockTransport = "http" | "msw";

/** Both transports, for `describe.each`. */
export const TRANSPORTS: MockTransport[] = ["http", "msw"];

/** A running mock with a client on its default account; disposed with `await using`. */
export interface StartedMock {
  paykit: Paykit;
  control: MockControl;
  account: { accountId: string; publicKey: string; secretKey: string };
  baseUrl: string;
  /** Another client on the same mock (other keys or options). */
  client(options?: Partial<PaykitOptions>): Paykit;
  [Symbol.asyncDispose](): Promise<void>;
}

const MSW_BASE = "https://api.paykit.test/v1";

/**
 * Starts the mock (manual processing unless told otherwise) and a client with millisecond backoff.
 * msw intercepts the global fetch, so the msw client is built after `listen()`.
 */
export async function startMock(
  transport: MockTransport,
  options: CreateEngineOptions = {},
  clientOptions: Partial<PaykitOptions> = {},
): Promise<StartedMock> {
  const engineOptions: CreateEngineOptions = { autoAdvance: false, ...options };
  let baseUrl: string;
  let control: MockControl;
  let account: StartedMock["account"];
  let close: () => Promise<void>;
  if (transport === "http") {
    const mock = await createMockServer(engineOptions);
    baseUrl = mock.url;
    control = mock.control;
    account = mock.account;
    close = () => mock.close();
  } else {
    const mock = createPaykitMock({ baseUrl: MSW_BASE, ...engineOptions });
    const server = setupServer(...mock.handlers);
    server.listen({ onUnhandledRequest: "error" });
    baseUrl = MSW_BASE;
    control = mock.control;
    account = mock.account;
    close = async () => {
      server.close();
      mock.close();
    };
  }
  const client = (overrides: Partial<PaykitOptions> = {}) =>
    new Paykit({
      publicKey: account.publicKey,
      secretKey: account.secretKey,
      baseUrl,
      retryBackoff: { initialDelayMs: 1, maxDelayMs: 5 },
      ...clientOptions,
      ...overrides,
    });
  return { paykit: client(), control, account, baseUrl, client, [Symbol.asyncDispose]: close };
}
