import type { MockControl } from "../../control/mock-control.js";
import type { AccountKeys } from "../../domain/accounts.js";
import { retentionMs } from "../../domain/retention-period.js";
import { type CreateEngineOptions, createEngine, type MockEngine, stopEngine } from "../../http/engine.js";
import { hostAllowList } from "../../http/host-guard.js";
import { type MockStoreOption, openSandboxStore } from "../../stores/open-store.js";
import { defaultWebhookSecret } from "./default-secret.js";
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
  /**
   * More host names the control API (`/_mock/*`), the dashboard and the customer pages answer, for a
   * mock reached under a name (a reverse proxy, a container name): `"mock.team.example"`, or
   * `".team.example"` for every name under it. Any other `Host` gets 403 `FORBIDDEN_HOST`, so a page
   * on another name cannot read the mock by DNS rebinding. `localhost`, `*.localhost`, IP addresses,
   * `host` and the host of `publicUrl` are always allowed; the merchant API (which needs
   * an account's keys) answers any Host.
   * @default []
   */
  allowedHosts?: readonly string[];
  /**
   * Where the state is kept: `"memory"` (this process only), `{ dataDir: "./.paykit-mock" }` (PGlite
   * in that directory: survives restarts, one machine) or `{ url: "postgres://user@host:5432/db" }`
   * (a PostgreSQL server; a sandbox a team shares, so it needs `adminToken` and applies the
   * `sharedSandbox` rules unless `sharedSandbox: false` is given). A data directory is held by one
   * mock process at a time; any number of processes share a PostgreSQL store, each serving any request
   * as one transaction of it (docs/testing.md, "How the processes share the sandbox").
   * @default "memory"
   */
  store?: MockStoreOption;
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
  /**
   * Where the state is kept: `memory`, `embedded` (PGlite in a directory) or `postgres`; and how this
   * process serves it: `single` (the only process of its state), `shared` (one of any number of equal
   * processes on a PostgreSQL store), `refused` once a newer `@paykit/mock-server` migrated that store
   * (every request is then answered 503).
   */
  store: {
    kind: "memory" | "embedded" | "postgres";
    description: string;
    readonly role: "single" | "shared" | "refused";
  };
  /** Stops the server and every timer. */
  close(): Promise<void>;
  /** `await using mock = await createMockServer()` closes it at scope end. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The retention of a durable store (`--data-dir`, `--store`) when none is given. */
export const DURABLE_RETENTION = "30d";

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
  const {
    port = 0,
    host = "127.0.0.1",
    publicUrl,
    allowedHosts,
    store: storeOption = "memory",
    ...engineOptions
  } = options;
  // Before anything opens: a malformed entry is the caller's mistake, reported at once.
  const hosts = hostAllowList([host, publicUrl], allowedHosts);
  // A durable store outlives every CI run that makes an account in it: unused ones go after 30 days
  // unless told otherwise (docs/decisions/shared-sandbox-retention.md).
  if (storeOption !== "memory") engineOptions.retention ??= DURABLE_RETENTION;
  retentionMs(engineOptions.retention);
  const shared = typeof storeOption === "object" && "url" in storeOption;
  if (shared && !engineOptions.adminToken)
    throw new TypeError(
      "a PostgreSQL store is a sandbox a team shares: it needs an adminToken (--admin-token) for the calls about every account",
    );
  if (shared) engineOptions.sharedSandbox ??= true;
  // Fixed keys give the same webhook secret at every start (a durable store keeps the one it saved,
  // rotations included).
  const fixed = engineOptions.defaultAccount;
  if (fixed?.publicKey && fixed.secretKey && fixed.webhookSecret === undefined) {
    const { publicKey, secretKey } = fixed;
    engineOptions.defaultAccount = {
      ...fixed,
      webhookSecret: defaultWebhookSecret({ publicKey, secretKey }),
    };
  }
  const store =
    engineOptions.sandboxStore ??
    (await openSandboxStore(storeOption, {
      ...(engineOptions.onError === undefined ? {} : { onError: engineOptions.onError }),
      ...(engineOptions.now === undefined ? {} : { now: engineOptions.now }),
    }));
  let engine: MockEngine;
  try {
    engine = createEngine({ ...engineOptions, sandboxStore: store });
    // the sandbox's default account is in the store before the first request
    await engine.ready;
  } catch (error) {
    await store.close();
    throw error;
  }
  const served = await listen(engine, port, host, publicUrl, hosts).catch(async (error: unknown) => {
    engine.close();
    await store.close();
    throw error;
  });
  const close = async () => {
    await served.close();
    await stopEngine(engine);
    await store.close();
  };
  return {
    store: {
      kind: store.kind === "shared" ? "postgres" : store.kind,
      description: store.description,
      get role() {
        return store.refused ? "refused" : store.shared ? "shared" : "single";
      },
    },
    url: served.url,
    get account() {
      return engine.account;
    },
    control: engine.control,
    engine,
    close,
    [Symbol.asyncDispose]: close,
  };
}
