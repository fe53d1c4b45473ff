import { WEBHOOK_TIMEOUT_MS } from "@paykit/contract";
import type { ControlCall, ControlInput } from "../control/call.js";
import { directControl } from "../control/direct.js";
import type { MockControl } from "../control/mock-control.js";
import {
  type AccountKeys,
  type CreateAccountParams,
  credentialsAccount,
  newKeyPair,
  newWebhookSecret,
  presentedCredentials,
} from "../domain/accounts.js";
import { AfterCommit, ControlOperations, openAccount } from "../domain/control.js";
import { ApiError } from "../domain/errors.js";
import { RateLimiter } from "../domain/faults.js";
import { randomString, UlidFactory } from "../domain/ids.js";
import { registeredEntry } from "../domain/pix-directory.js";
import type { SandboxStore, TxScope } from "../domain/repository.js";
import { retentionMs } from "../domain/retention-period.js";
import { StoreUnavailableError } from "../domain/store-errors.js";
import type { Turn } from "../domain/turn.js";
import { DEFAULT_DELIVERY_CONCURRENCY, DeliverySlots } from "../internal/delivery-slots.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { startRetention } from "../work/retention.js";
import { Turns } from "../work/turns.js";
import { Worker } from "../work/worker.js";
import { authorizeSharedControlCall, checkAdminToken } from "./control-access.js";
import { DEFAULT_ACCOUNT, type EngineOptions } from "./engine-options.js";
import { type EngineRequest, type EngineResponse, errorResponse, MAX_BODY_BYTES } from "./messages.js";
import { guardControlCall } from "./origin-guard.js";
import { Router } from "./router.js";
import { allRoutes } from "./routes.js";
import { handleWebRequest, tooLarge } from "./web.js";

/**
 * The mock payment service as one fetch-style handler over a sandbox store (memory, PGlite or
 * PostgreSQL). Transports (node:http, msw) are thin adapters over {@link MockEngine.dispatch}.
 */
export interface MockEngine {
  /**
   * Answers a web `Request` like the service would. A `dropResponse` fault answers
   * `Response.error()` (a network error) after the handler ran.
   * @param base - The base URL the request addressed when the mock is served under a path prefix (msw's
   * `baseUrl`): paths are read below it, and the URLs the mock hands out keep it. The request's origin
   * by default.
   */
  handle(request: Request, base?: string): Promise<Response>;
  /** Answers an already-read request; what transports call. */
  dispatch(request: EngineRequest): Promise<EngineResponse>;
  /** The control API as direct calls. */
  readonly control: MockControl;
  /** The default account's keys (the same after every reset). */
  readonly account: AccountKeys;
  /** Resolves once the engine's store holds its default account (requests wait for it themselves). */
  readonly ready: Promise<void>;
  /** Stops every timer (payout steps, expiries, webhook retries). Idempotent. */
  close(): void;
}

/** Options of {@link createEngine}. */
export interface CreateEngineOptions extends EngineOptions {
  /** Called with every unexpected error (answered as 500 INTERNAL_ERROR). @default nothing */
  onError?: (error: unknown) => void;
  /**
   * The access rules of a sandbox a team shares (the CLI's `--shared`; needs `adminToken`):
   * `POST /_mock/accounts` is open, so every CI run makes its own account; a control call about one
   * account (its settings, clock, reset, faults, payins, payouts, deliveries) is authorized by that
   * account's own keys (Basic pk:sk) or the admin token; calls about every account need the admin
   * token. One account's keys never see another's resources (404, as for a missing one).
   * @default false (every control call needs the admin token when one is set)
   */
  sharedSandbox?: boolean;
  /**
   * Where the sandbox's state is kept (what `createMockServer({ store })` opens: PGlite or
   * PostgreSQL); each request is one transaction of it, answered once committed.
   * @default this process's memory
   */
  sandboxStore?: SandboxStore;
}

/**
 * Every 401 of the merchant API names its scheme (RFC 9110 section 11.6.1). The control API's name
 * Bearer (set where they are thrown): a Basic challenge there would make a browser pop its login
 * dialog over the dashboard, which asks for the admin token itself.
 */
function withChallenge(req: EngineRequest, response: EngineResponse): EngineResponse {
  if (response.status === 401 && !req.path.startsWith("/_mock/"))
    response.headers["www-authenticate"] = 'Basic realm="Paykit"';
  return response;
}

/** A HEAD answer: the GET's status and headers, its length, no body. */
function withoutBody(response: EngineResponse): EngineResponse {
  const length =
    response.body === null
      ? 0
      : typeof response.body === "string"
        ? new TextEncoder().encode(response.body).byteLength
        : response.body.byteLength;
  return { ...response, headers: { ...response.headers, "content-length": String(length) }, body: null };
}

/** A request id worth echoing: printable ASCII, no longer than any client makes one. */
const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Every answer carries the request's `X-Request-Id` back, as gateways that log it do, so a client's
 * id for an attempt can be matched with the answer it got (docs/decisions/request-ids.md).
 */
function withRequestId(req: EngineRequest, response: EngineResponse): EngineResponse {
  const id = req.header("x-request-id");
  // each answer's header record is its own (`json()`, the routes' literals), as `withChallenge` relies on
  if (id !== undefined && REQUEST_ID.test(id)) response.headers["x-request-id"] = id;
  return response;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function bodyBytes(text: string): number {
  // A UTF-16 string of n units is at most 3n UTF-8 bytes: count only when that could pass the limit.
  return text.length * 3 <= MAX_BODY_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
}

/** How many times the engine runs a request whose transaction the store ended before its commit. */
const RUNS_PER_REQUEST = 3;

/** Each engine's worker, for {@link stopEngine} (not part of the engine's public shape). */
const workers = new WeakMap<MockEngine, Worker>();

/**
 * Closes an engine as a server that stops on purpose does: its attempts under way get a moment to end,
 * and the claims of the others are freed, so the next process makes them at once.
 */
export async function stopEngine(engine: MockEngine): Promise<void> {
  const worker = workers.get(engine);
  engine.close();
  await worker?.stop();
}

/**
 * Creates a mock engine: a default account (KYC approved, cards enabled, automatic payout approval,
 * 1000000 cents), the seed PIX directory and a clock at real time.
 *
 * @example
 * const engine = createEngine({ autoAdvance: false });
 * const auth = "Basic " + btoa(`${engine.account.publicKey}:${engine.account.secretKey}`);
 * const res = await engine.handle(new Request("http://mock.test/payout?limit=5", { headers: { authorization: auth } }));
 * engine.close();
 */
export function createEngine(options: CreateEngineOptions = {}): MockEngine {
  if (options.sharedSandbox && !options.adminToken)
    throw new TypeError(
      "sharedSandbox needs an adminToken: without one, nobody could make the calls about every account",
    );
  const sharedToken = options.sharedSandbox ? options.adminToken : undefined;
  const onError = options.onError ?? (() => {});
  const store: SandboxStore = options.sandboxStore ?? new MemoryStore(options.now);
  const ids = new UlidFactory();
  const turns = new Turns(
    store,
    {
      autoAdvance: options.autoAdvance ?? true,
      advanceIntervalMs: options.advanceIntervalMs ?? 1000,
      pixDirectory: options.strictPixDirectory ? "strict" : "open",
      maxRecords: options.maxRecords ?? Number.POSITIVE_INFINITY,
    },
    ids,
  );
  const fetcher = options.fetch;
  const worker = new Worker({
    store,
    turns,
    owner: `mock_${randomString(16)}`,
    fetcher: () => fetcher ?? ((url, init) => globalThis.fetch(url, init)),
    slots: new DeliverySlots({ ...DEFAULT_DELIVERY_CONCURRENCY, ...options.webhookConcurrency }),
    timeoutMs: options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
    onError,
    ...(options.now ? { now: options.now } : {}),
  });
  const rateLimiter = new RateLimiter();

  // The default account: its keys are known now (given, or made here), its row once `ready`.
  const fixed = options.defaultAccount ?? {};
  const keys =
    fixed.publicKey && fixed.secretKey
      ? { publicKey: fixed.publicKey, secretKey: fixed.secretKey }
      : newKeyPair();
  const account: AccountKeys = {
    accountId: `acct_${ids.next(Date.now())}`,
    ...keys,
    // The default account signs its deliveries from the first run
    // (docs/decisions/mock-server-starting.md): a random secret unless fixed, kept across resets.
    webhookSecret: fixed.webhookSecret ?? newWebhookSecret(),
  };
  const defaultParams: CreateAccountParams = {
    ...DEFAULT_ACCOUNT,
    ...fixed,
    ...keys,
    webhookSecret: account.webhookSecret,
  };

  const context = {
    work: worker,
    startPixKeys: () => (options.pixKeys ?? []).map(registeredEntry),
  };
  const router = new Router(allRoutes(context));

  const defaultAccountTurn = async (turn: Turn) => {
    const storedId = turn.tx.sandbox.defaultAccountId;
    const stored =
      (storedId === null ? null : await turn.tx.account(storedId)) ??
      (await turn.tx.accountByPublicKey(keys.publicKey));
    if (stored !== null) {
      // another process (or an earlier run) opened the sandbox: its default account is this one's
      account.accountId = stored.id;
      if (stored.publicKey !== account.publicKey) {
        account.publicKey = stored.publicKey;
        account.secretKey = "";
      }
      if (stored.webhookSecret !== null) account.webhookSecret = stored.webhookSecret;
      else delete account.webhookSecret;
    } else {
      await openAccount(turn, defaultParams, account.accountId);
      for (const entry of context.startPixKeys()) turn.tx.registerPixKey(entry);
    }
    if (turn.tx.sandbox.defaultAccountId !== account.accountId)
      turn.tx.updateSandbox({ ...turn.tx.sandbox, defaultAccountId: account.accountId });
  };
  /**
   * The default account: made by the first process to open the sandbox, adopted by every other. Two
   * processes starting at the same moment may both find none: with the same keys the second one's insert
   * is refused (it runs again and adopts the first's); with keys of their own both commit, the last one
   * names its account, and the other adopts that one when it reads the sandbox back.
   */
  async function openDefaultAccount(): Promise<void> {
    for (let run = 1; ; run++) {
      try {
        await turns.run(defaultAccountTurn);
      } catch (error) {
        const taken = error instanceof ApiError && error.details?.some((d) => d.path === "publicKey");
        if (taken && run < 3) continue;
        throw error;
      }
      const named = await turns.run(async (turn) => turn.tx.sandbox.defaultAccountId, { write: false });
      if (named === account.accountId || run >= 3) return;
    }
  }
  const ready = openDefaultAccount().then(async () => {
    // payouts a process with --manual left moving go on when this one moves them
    if (turns.rules.autoAdvance) await store.armPayoutSteps?.(Date.now() + turns.rules.advanceIntervalMs);
  });
  ready.catch(onError);
  // once open, a request awaits nothing for it (an await is a turn of the microtask queue per request)
  let opened = false;
  ready.then(
    () => {
      opened = true;
    },
    () => {},
  );
  worker.start();

  const retention = retentionMs(options.retention);
  // a stamp of last use is never as old as the retention: at most a quarter of it
  if (retention > 0) store.setTouchEvery?.(retention / 4);
  const stopRetention = retention > 0 ? startRetention(store, retention, onError) : () => {};

  async function dispatch(req: EngineRequest): Promise<EngineResponse> {
    return withRequestId(req, await dispatchOnce(req));
  }

  async function dispatchOnce(req: EngineRequest): Promise<EngineResponse> {
    // HEAD is answered on every GET route: the GET runs, the body is dropped (RFC 9110 section 9.3.2).
    if (req.method === "HEAD") return withoutBody(await dispatch({ ...req, method: "GET" }));
    let delayMs = 0;
    let drop = false;
    let rateCounted = false;
    let response: EngineResponse;
    try {
      if (!opened) await ready;
      if (req.body !== null && bodyBytes(req.body) > MAX_BODY_BYTES) throw tooLarge();
      const { route, params } = router.match(req.method, req.path);
      const answer = await runRequest(
        async (turn) => {
          // a fault takes its use in the request's turn: committed even when it refuses the request
          if (route.kind === "api" && turn.tx.sandbox.faultsArmed) {
            const caller = await credentialsAccount(req.header("authorization"), callerOf(turn));
            const fault = await turn.tx.takeFault(req.method, req.path, caller?.id ?? null);
            if (fault !== null) {
              delayMs = fault.latencyMs;
              drop = fault.drop;
              // refused, and the fault's use kept
              if (fault.error) {
                const { code, message, status, headers } = fault.error;
                throw new ApiError(code, message, { status, ...(headers ? { headers } : {}), keep: true });
              }
            }
          }
          const limit = turn.tx.sandbox.rateLimit;
          // counted once per request: a run again (its transaction ended before the commit) is the same one
          if (route.kind === "api" && limit !== null && !rateCounted) {
            rateLimiter.configure(limit);
            // Per authenticated account; requests without valid credentials share one bucket per client.
            const caller = await credentialsAccount(req.header("authorization"), callerOf(turn));
            rateLimiter.check(caller?.id ?? `client:${req.remoteAddress ?? "unknown"}`, Date.now());
            rateCounted = true;
          }
          let caller: string | undefined;
          if (route.kind === "control") {
            guardControlCall(req);
            const access = (await route.access?.({ req, params, turn })) ?? "global";
            if (sharedToken !== undefined) {
              caller = await authorizeSharedControlCall(turn, req, access, sharedToken);
            } else if (access === "caller") {
              // `GET /_mock/account`: an account's own keys read their account on any mock, a token-guarded
              // one too (what they read, the merchant API with the same keys nearly shows)
              const keys = await credentialsAccount(req.header("authorization"), (pk) =>
                turn.tx.accountByPublicKey(pk),
              );
              caller = keys?.id;
              if (caller === undefined && options.adminToken !== undefined)
                checkAdminToken(req, options.adminToken);
            } else if (options.adminToken !== undefined) checkAdminToken(req, options.adminToken);
            // a control call about an account is a use of it too (retention counts from the last use)
            if (caller !== undefined) turn.tx.touchAccount(caller);
            if (params.id !== undefined && route.path.startsWith("/_mock/accounts/:id"))
              turn.tx.touchAccount(params.id);
          }
          return route.handle(caller === undefined ? { req, params, turn } : { req, params, caller, turn });
        },
        {
          write: route.writes !== false,
          // a merchant call's account is read with its transaction's first statements
          ...(route.kind === "api"
            ? { caller: presentedCredentials(req.header("authorization"))?.publicKey }
            : {}),
        },
      );
      response = answer instanceof AfterCommit ? await answer.wait() : answer;
    } catch (error) {
      response = failure(req, error);
    }
    if (delayMs > 0) await sleep(delayMs);
    if (drop) response.drop = true;
    return response;
  }

  /** Finds an account by public key as the request's caller (read with the turn's first statements). */
  function callerOf(turn: Turn) {
    return async (publicKey: string) => (await turn.tx.caller(publicKey))?.account ?? null;
  }

  /** One request's turn, run again when the store ended its transaction before the commit. */
  async function runRequest<T>(work: (turn: Turn) => Promise<T>, scope: TxScope): Promise<T> {
    for (let run = 1; ; run++) {
      try {
        return await turns.run(work, scope);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError) || !error.runAgain || run >= RUNS_PER_REQUEST)
          throw error;
      }
    }
  }

  function failure(req: EngineRequest, error: unknown): EngineResponse {
    if (error instanceof ApiError) return withChallenge(req, errorResponse(error));
    if (error instanceof StoreUnavailableError) {
      onError(error);
      return errorResponse(
        new ApiError("INTERNAL_ERROR", error.message, { status: 503, headers: { "retry-after": "1" } }),
      );
    }
    onError(error);
    return errorResponse(
      new ApiError("INTERNAL_ERROR", "the mock failed unexpectedly; this is a bug in @paykit/mock-server"),
    );
  }

  /** A control call of the in-process control: one turn, then what it waits for. */
  async function runCall<W>(
    call: ControlCall<never, W, unknown>,
    input: ControlInput<unknown, unknown>,
  ): Promise<W> {
    await ready;
    const answer = await runRequest(
      (turn) => {
        // a control call about an account is a use of it (retention counts from the last use)
        if (input.id !== "" && call.path.startsWith("/accounts/:id")) turn.tx.touchAccount(input.id);
        return call.run(new ControlOperations(turn, context), input as never);
      },
      { write: call.method !== "GET" },
    );
    return answer instanceof AfterCommit ? answer.wait() : answer;
  }

  const engine: MockEngine = {
    handle: (request, base) => handleWebRequest(request, dispatch, base),
    dispatch,
    control: directControl(runCall),
    account,
    ready,
    close() {
      stopRetention();
      worker.close();
    },
  };
  workers.set(engine, worker);
  return engine;
}
