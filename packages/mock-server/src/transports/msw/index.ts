/**
 * The Paykit mock service as msw request handlers, for tests that intercept fetch.
 *
 * @packageDocumentation
 * @module @paykit/mock-server/msw
 */
import { http, type RequestHandler } from "msw";
import type { MockControl } from "../../control/mock-control.js";
import type { AccountKeys } from "../../domain/accounts.js";
import { type CreateEngineOptions, createEngine, type MockEngine } from "../../http/engine.js";

/** Options of {@link createPaykitMock}: where the client sends requests, plus the engine's options. */
export interface PaykitMockOptions extends CreateEngineOptions {
  /** The base URL the client under test uses (`https://api.paykit.test`); may carry a path prefix. */
  baseUrl: string;
  /**
   * Where the state is kept: msw runs inside the test's own process, so in its memory alone (the same
   * option as `createMockServer`'s, so one options object serves both; a durable store needs the
   * node:http server).
   * @default "memory"
   */
  store?: "memory";
}

/** The mock payment service as msw handlers. */
export interface PaykitMock {
  /** Handlers for `setupServer(...handlers)` / `setupWorker`. */
  handlers: RequestHandler[];
  /** The default account's keys. */
  account: AccountKeys;
  /** The control API (direct calls on the engine). */
  control: MockControl;
  /** The engine behind the handlers. */
  engine: MockEngine;
  /** Stops the engine's timers. */
  close(): void;
}

/**
 * The mock payment service as msw request handlers over one engine: every request under `baseUrl` is
 * answered like the service would. A `dropResponse` fault answers `HttpResponse.error()` (a network
 * error) after the handler ran.
 *
 * @example
 * const mock = createPaykitMock({ baseUrl: "https://api.paykit.test", autoAdvance: false });
 * const server = setupServer(...mock.handlers);
 * server.listen();
 * const paykit = new Paykit({ ...mock.account, baseUrl: "https://api.paykit.test" });
 */
export function createPaykitMock(options: PaykitMockOptions): PaykitMock {
  const { baseUrl, store: _memoryOnly, ...engineOptions } = options;
  const base = baseUrl.replace(/\/$/, "");
  const engine = createEngine(engineOptions);
  // The engine's one Request → Response entry, told the base: paths are read below the prefix, and the
  // URLs the mock hands out (boleto, bank page, 3DS script) keep it. A dropped response is
  // `Response.error()`, which is what msw's `HttpResponse.error()` returns.
  const handler = http.all(`${base}/*`, ({ request }) => engine.handle(request, base));
  return {
    handlers: [handler],
    get account() {
      return engine.account;
    },
    control: engine.control,
    engine,
    close: () => engine.close(),
  };
}
export {
  SAMPLE_CARD,
  SAMPLE_CUSTOMER,
  SAMPLE_ITEMS,
  samplePayin,
  samplePayout,
  sampleReferenceId,
} from "../../domain/samples.js";
