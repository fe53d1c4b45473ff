/**
 * The Paykit mock service as msw request handlers, for tests that intercept fetch.
 *
 * @packageDocumentation
 * @module @paykit/mock-server/msw
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import type { AccountKeys } from "../../domain/accounts.js";
import type { MockControl } from "../../control/mock-control.js";
import { ApiError } from "../../domain/errors.js";
import { type CreateEngineOptions, createEngine, type MockEngine } from "../../http/engine.js";
import { errorResponse } from "../../http/messages.js";
import { readWebRequest } from "../../http/web.js";

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
  const handler = http.all(`${base}/*`, async ({ request }) => {
    let response: ReturnType<typeof errorResponse>;
    try {
      response = await engine.dispatch(await readWebRequest(request, base));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      response = errorResponse(error);
    }
    if (response.drop) return HttpResponse.error();
    return new HttpResponse(response.body as BodyInit | null, {
      status: response.status,
      headers: response.headers,
    });
  });
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
