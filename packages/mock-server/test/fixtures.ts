import { setupServer } from "msw/node";
import {
  type CreateEngineOptions,
  createEngine,
  createHttpControl,
  createMockServer,
  type MockControl,
  SAMPLE_CARD,
  SAMPLE_CUSTOMER,
  samplePayin,
  samplePayout,
  sampleReferenceId,
} from "../src/index.js";
import { createPaykitMock } from "../src/transports/msw/index.js";
import { startClusterHarness, startDurableHarness } from "./durable-harness.js";

/** One way of reaching the mock: the engine directly, node:http, or msw. */
export interface Harness {
  name: string;
  /** Base URL the mock answers at (what a client would use as `baseUrl`). */
  base: string;
  /** Sends a request; a cut connection resolves `"dropped"`. */
  send(path: string, init?: RequestInit): Promise<Response | "dropped">;
  control: MockControl;
  account: { accountId: string; publicKey: string; secretKey: string };
  close(): Promise<void>;
}

export type TransportName = "engine" | "node" | "msw" | "pglite" | "postgres" | "cluster";

const MSW_BASE = "https://api.paykit.test/v1";

/**
 * Starts a mock over the named transport. Over node:http the control API is reached over HTTP;
 * `pglite` and `postgres` are node:http with the state in that durable store; `cluster` is two mock
 * servers on one PostgreSQL store (equal: each request is a transaction), the requests sent to the second.
 */
export async function startHarness(name: TransportName, options: CreateEngineOptions = {}): Promise<Harness> {
  if (name === "pglite" || name === "postgres") return startDurableHarness(name, options);
  if (name === "cluster") return startClusterHarness(options);
  if (name === "engine") {
    const engine = createEngine(options);
    const base = "http://mock.test";
    return {
      name,
      base,
      async send(path, init) {
        const res = await engine.handle(new Request(base + path, init));
        return res.type === "error" ? "dropped" : res;
      },
      control: engine.control,
      account: engine.account,
      close: async () => engine.close(),
    };
  }
  if (name === "node") {
    const mock = await createMockServer(options);
    return {
      name,
      base: mock.url,
      send: (path, init) => fetch(mock.url + path, init).catch(() => "dropped" as const),
      control: createHttpControl({ url: mock.url, adminToken: options.adminToken }),
      account: mock.account,
      close: () => mock.close(),
    };
  }
  const mock = createPaykitMock({ baseUrl: MSW_BASE, ...options });
  const server = setupServer(...mock.handlers);
  server.listen({ onUnhandledRequest: "bypass" });
  return {
    name,
    base: MSW_BASE,
    send: (path, init) => fetch(MSW_BASE + path, init).catch(() => "dropped" as const),
    control: mock.control,
    account: mock.account,
    close: async () => {
      server.close();
      mock.close();
    },
  };
}

/**
 * How long a test waits for the mock's background work (a webhook attempt made and recorded, a payout
 * step): `vi.waitFor`'s default of 1 s is less than a PGlite turn can take beside a busy core.
 */
export const WAIT = { timeout: 15_000, interval: 50 } as const;

export const TRANSPORTS: TransportName[] = ["engine", "node", "msw"];

/** The transports, then node:http over each durable store: for the acceptance suites (issue 15). */
export const TRANSPORTS_AND_STORES: TransportName[] = [...TRANSPORTS, "pglite", "postgres"];

/** `Authorization: Basic base64(pk:sk)`. */
export function basic(keys: { publicKey: string; secretKey: string }): string {
  return `Basic ${btoa(`${keys.publicKey}:${keys.secretKey}`)}`;
}

/** A small API client over a harness, authenticated as `keys`. */
export function apiOf(h: Harness, keys: { publicKey: string; secretKey: string } = h.account) {
  const headers = { authorization: basic(keys), "content-type": "application/json" };
  async function call(method: string, path: string, body?: unknown) {
    const res = await h.send(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res === "dropped") return { status: 0, body: undefined as never, headers: new Headers() };
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field
    const parsed: any = text ? JSON.parse(text) : undefined;
    return { status: res.status, body: parsed, headers: res.headers };
  }
  return {
    post: (path: string, body: unknown) => call("POST", path, body),
    get: (path: string) => call("GET", path),
  };
}

// The package's own samples (also what merchants use); these wrappers take loose overrides so a test
// can send what the contract would refuse.
export const customer = SAMPLE_CUSTOMER;

/** A unique reference id. */
export const ref = (prefix = "ref") => sampleReferenceId(prefix);

export const pixPayin = (extra: Record<string, unknown> = {}) => ({ ...samplePayin("PIX"), ...extra });
export const boletoPayin = (extra: Record<string, unknown> = {}) => ({ ...samplePayin("BOLETO"), ...extra });
export const openFinancePayin = (extra: Record<string, unknown> = {}) => ({
  ...samplePayin("OPEN_FINANCE"),
  ...extra,
});
export const cardPayin = (number = "4111111111111111", extra: Record<string, unknown> = {}) => ({
  ...samplePayin("CREDIT_CARD", { card: { ...SAMPLE_CARD, number } }),
  ...extra,
});
export const payoutBody = (extra: Record<string, unknown> = {}) => ({ ...samplePayout(), ...extra });
