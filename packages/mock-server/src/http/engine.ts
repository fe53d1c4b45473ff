import { directControl } from "../control/direct.js";
import type { MockControl } from "../control/mock-control.js";
import type { AccountKeys } from "../domain/accounts.js";
import { ControlOperations } from "../domain/control.js";
import { ApiError } from "../domain/errors.js";
import { constantTimeEqual } from "../domain/ids.js";
import { expireOnClock } from "../domain/payins.js";
import {
  type AccountNeeds,
  changesNotStored,
  type RequestHold,
  RUNS_PER_REQUEST,
  RunAgainError,
  type StatePersistence,
} from "../domain/persistence.js";
import { startRetention } from "../domain/retention.js";
import { type EngineOptions, MockState } from "../domain/state.js";
import { authorizeSharedControlCall, checkAdminToken } from "./control-access.js";
import { type EngineRequest, type EngineResponse, errorResponse, MAX_BODY_BYTES } from "./messages.js";
import { guardControlCall } from "./origin-guard.js";
import { Router } from "./router.js";
import { allRoutes } from "./routes.js";
import { handleWebRequest, tooLarge } from "./web.js";

/**
 * The mock payment service as one fetch-style handler over in-memory state. Transports (node:http,
 * msw) are thin adapters over {@link MockEngine.dispatch}.
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
   * A durable store's hold on the state (what `createMockServer({ store })` opens): the engine starts
   * from the saved state and answers a request only once its changes are saved.
   * @default none: the state lives in this process's memory
   */
  persistence?: StatePersistence;
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

const NO_HOLD: RequestHold = { release: () => {} };

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

/** The public key of a request's Basic credentials, if it carries any. */
function basicPublicKey(header: string | undefined): string | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? "");
  if (match?.[1] === undefined) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  return colon > 0 ? decoded.slice(0, colon) : undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function bodyBytes(text: string): number {
  // A UTF-16 string of n units is at most 3n UTF-8 bytes: count only when that could pass the limit.
  return text.length * 3 <= MAX_BODY_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
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
  const state = new MockState(options, expireOnClock);
  const persistence = options.persistence;
  persistence?.attach(state);
  const ops = new ControlOperations(state);
  const router = new Router(allRoutes(state, ops));
  const onError = options.onError;
  const stopRetention =
    state.retentionMs > 0
      ? startRetention(state, persistence, state.retentionMs, (error) => onError?.(error))
      : () => {};

  async function dispatch(req: EngineRequest): Promise<EngineResponse> {
    return withRequestId(req, await dispatchOnce(req));
  }

  async function dispatchOnce(req: EngineRequest): Promise<EngineResponse> {
    // HEAD is answered on every GET route: the GET runs, the body is dropped (RFC 9110 section 9.3.2).
    if (persistence === undefined) {
      if (req.method === "HEAD") return withoutBody(await answer({ ...req, method: "GET" }));
      return answer(req);
    }
    // A run whose transaction the store ended before its commit stored nothing: it runs again.
    let outcome = await runOnce(req, persistence);
    for (let run = 1; outcome.again && run < RUNS_PER_REQUEST; run++)
      outcome = await runOnce(req, persistence);
    const { response } = outcome;
    const delayMs = response.delayMs;
    if (delayMs !== undefined) {
      delete response.delayMs;
      await sleep(delayMs);
    }
    return response;
  }

  /** One run of a request on a durable store: its hold, its answer, its commit. */
  async function runOnce(
    req: EngineRequest,
    persistence: StatePersistence,
  ): Promise<{ response: EngineResponse; again: boolean }> {
    let hold: RequestHold = NO_HOLD;
    if (persistence.prepare !== undefined) {
      try {
        hold = await persistence.prepare(needsOf(req));
      } catch (error) {
        const response = storeFailure(
          error,
          "the mock could not read this request's account from its store; nothing was changed: send it again",
        );
        return { response, again: error instanceof RunAgainError };
      }
    }
    try {
      const work = () => answerSaved(req, persistence, hold);
      return await (hold.run === undefined ? work() : hold.run(work));
    } finally {
      hold.release();
    }
  }

  /** The answer to a store's failure: its own error when it says what happened, else 503 with `message`. */
  function storeFailure(error: unknown, message: string): EngineResponse {
    if (error instanceof ApiError) return errorResponse(error);
    onError?.(error);
    return errorResponse(
      new ApiError("INTERNAL_ERROR", message, { status: 503, headers: { "retry-after": "1" } }),
    );
  }

  /** The accounts a request needs in memory: its caller's, and those its route names. */
  function needsOf(req: EngineRequest): AccountNeeds {
    const key = basicPublicKey(req.header("authorization"));
    let needs: AccountNeeds = {};
    try {
      const { route, params } = router.match(req.method === "HEAD" ? "GET" : req.method, req.path);
      if (route.needs !== undefined) needs = route.needs({ req, params }, isAdmin(req));
    } catch {
      // no such route: the request is answered 404 (or 405) from what is in memory
    }
    return key === undefined ? needs : { ...needs, publicKeys: [...(needs.publicKeys ?? []), key] };
  }

  /** Whether a request may make calls about every account: the admin token, or none is set. */
  function isAdmin(req: EngineRequest): boolean {
    const token = options.adminToken;
    if (token === undefined) return true;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header("authorization") ?? "");
    return match?.[1] !== undefined && constantTimeEqual(match[1], token);
  }

  async function answerSaved(
    req: EngineRequest,
    persistence: StatePersistence,
    hold: RequestHold,
  ): Promise<{ response: EngineResponse; again: boolean }> {
    const reloads = persistence.reloads;
    const response =
      req.method === "HEAD" ? withoutBody(await answer({ ...req, method: "GET" })) : await answer(req);
    try {
      await (hold.saved === undefined ? persistence.saved() : hold.saved());
      // answered from a state that a failed save made the store read back meanwhile
      if (persistence.reloads !== reloads) throw changesNotStored("no");
    } catch (error) {
      // the store's own 503 says whether the changes are stored
      const failed = storeFailure(
        error,
        "the mock's store failed while saving this request's changes: they may or may not be stored",
      );
      return { response: failed, again: error instanceof RunAgainError };
    }
    return { response, again: false };
  }

  async function answer(req: EngineRequest): Promise<EngineResponse> {
    try {
      // Work due on the clock runs before the request sees the state: the caller's account's for the
      // merchant API (accounts do not affect each other), every account's for the control API and pages.
      if (req.path.startsWith("/_mock/")) state.runDue();
      else {
        const caller = state.authenticator.accountIdOf(req.header("authorization"));
        if (caller !== null) {
          state.runDue(caller);
          state.touch(caller);
        }
      }
      if (req.body !== null && bodyBytes(req.body) > MAX_BODY_BYTES) throw tooLarge();
      let drop = false;
      let delayMs = 0;
      if (!req.path.startsWith("/_mock/")) {
        const fault = state.faults.take(req.method, req.path, () =>
          state.authenticator.accountIdOf(req.header("authorization")),
        );
        if (fault) {
          // with a store that locks per request, the wait comes after its transaction (see delayMs)
          if (fault.latencyMs > 0 && persistence?.locksAccounts) delayMs = fault.latencyMs;
          else if (fault.latencyMs > 0) await sleep(fault.latencyMs);
          if (fault.error) throw fault.error;
          drop = fault.drop;
        }
      }
      const { route, params } = router.match(req.method, req.path);
      if (route.kind === "api" && state.rateLimiter.active) {
        // Per authenticated account; requests without valid credentials share one bucket per client.
        const accountId = state.authenticator.accountIdOf(req.header("authorization"));
        state.rateLimiter.check(accountId ?? `client:${req.remoteAddress ?? "unknown"}`, Date.now());
      }
      let caller: string | undefined;
      if (route.kind === "control") {
        guardControlCall(req);
        const access = route.access?.({ req, params }) ?? "global";
        if (sharedToken !== undefined) {
          caller = authorizeSharedControlCall(state, req, access, sharedToken);
        } else if (access === "caller") {
          // `GET /_mock/account`: an account's own keys read their account on any mock, a token-guarded
          // one too (what they read, the merchant API with the same keys nearly shows)
          caller = state.authenticator.accountIdOf(req.header("authorization")) ?? undefined;
          if (caller === undefined && state.adminToken !== undefined) checkAdminToken(req, state.adminToken);
        } else if (state.adminToken !== undefined) checkAdminToken(req, state.adminToken);
        // a control call about an account is a use of it too (retention counts from the last use)
        if (caller !== undefined) state.touch(caller);
        if (params.id !== undefined && route.path.startsWith("/_mock/accounts/:id")) state.touch(params.id);
      }
      // Most handlers answer at once: awaiting only a promise saves a microtask turn per request.
      const handled = route.handle(caller === undefined ? { req, params } : { req, params, caller });
      const response = handled instanceof Promise ? await handled : handled;
      if (drop) response.drop = true;
      if (delayMs > 0) response.delayMs = delayMs;
      return response;
    } catch (error) {
      if (error instanceof ApiError) return withChallenge(req, errorResponse(error));
      onError?.(error);
      return errorResponse(
        new ApiError("INTERNAL_ERROR", "the mock failed unexpectedly; this is a bug in @paykit/mock-server"),
      );
    }
  }

  return {
    handle: (request, base) => handleWebRequest(request, dispatch, base),
    dispatch,
    control: directControl(ops, persistence),
    get account() {
      return state.keysOf(state.defaultAccount);
    },
    close() {
      stopRetention();
      state.close();
    },
  };
}
