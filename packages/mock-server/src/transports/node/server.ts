import type { AccountKeys } from "../../domain/accounts.js";
import type { MockControl } from "../../domain/control.js";
import { type CreateEngineOptions, createEngine, type MockEngine } from "../../http/engine.js";
import { listen } from "./listen.js";

/** Options of {@link createMockServer}: the engine's options plus where to listen. */
export interface MockServerOptions extends CreateEngineOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** Address to bind. @default "127.0.0.1" */
  host?: string;
  /**
   * The mock's URL as its clients reach it (behind a proxy, or another host name): the base of the URLs
   * it hands out (3DS script, boleto, bank page) and its own origin for the control API's origin check.
   * @default the listening address, `http://127.0.0.1:PORT`
   */
  publicUrl?: string;
}

/** A running mock service for a test. */
export interface MockServer {
  /** Base URL of the mock, `http://127.0.0.1:PORT`: the client's `baseUrl`. */
  url: string;
  /** The default account's keys. */
  account: AccountKeys;
  /** The control API (direct calls on the engine). */
  control: MockControl;
  /** The engine behind the server. */
  engine: MockEngine;
  /** Stops the server and every timer. */
  close(): Promise<void>;
  /** `await using mock = await createMockServer()` closes it at scope end. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the mock payment service over node:http for a test: 127.0.0.1 on a free port, a default
 * account with 1000000 cents, payouts moving a step per second unless `autoAdvance: false`.
 *
 * @example
 * await using mock = await createMockServer({ autoAdvance: false });
 * const paykit = new Paykit({ ...mock.account, baseUrl: mock.url });
 * const payin = await paykit.payins.create(pixPayin);
 * await mock.control.payPayin(payin.id);
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { port = 0, host = "127.0.0.1", publicUrl, ...engineOptions } = options;
  const engine = createEngine(engineOptions);
  const served = await listen(engine, port, host, publicUrl).catch((error: unknown) => {
    engine.close();
    throw error;
  });
  return {
    url: served.url,
    get account() {
      return engine.account;
    },
    control: engine.control,
    engine,
    close: () => served.close(),
    [Symbol.asyncDispose]: () => served.close(),
  };
}
