// Several mock processes on one PostgreSQL store (`--store postgres://…`): a sandbox a team shares, behind
// one address. One process at a time is the leader: it holds the store's advisory lock on its own
// database session, keeps the state in its engine, saves every change through that same session, runs
// the due work and sends the webhooks. Every other process answers its clients by forwarding each request
// to the leader, and tries for the lock four times a second: when the leader stops or dies (its session,
// and the lock with it, ends), one of them reads the saved state back and leads from there. The engine
// stays the one place where a balance is checked and debited, so payouts spread over any number of
// processes can neither overdraw nor reuse a referenceId; the schema's constraints are the backstop.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AccountKeys } from "../../domain/accounts.js";
import type { MockControl } from "../../domain/control.js";
import { ApiError } from "../../domain/errors.js";
import { constantTimeEqual, randomToken } from "../../domain/ids.js";
import type { SavedAccount, SavedSandbox } from "../../domain/saved.js";
import { createHttpControl } from "../../http/control-client.js";
import { type CreateEngineOptions, createEngine, type MockEngine } from "../../http/engine.js";
import { type EngineRequest, type EngineResponse, errorResponse } from "../../http/messages.js";
import { handleWebRequest } from "../../http/web.js";
import { Persister } from "../../stores/persister.js";
import { migrate } from "../../stores/sql/migrations.js";
import { openPostgresSession, type SqlDatabase } from "../../stores/sql/sql-client.js";
import { SqlStateStore } from "../../stores/sql/state-store.js";

// Any constant works: every mock process takes the same one.
const LEADER_LOCK = 0x7061796c; // "payl"
const LEADER_KEY = "leader";
/** How often a follower tries for the lock, in ms. */
const ELECTION_INTERVAL_MS = 250;
/** How often the leader writes that it is alive, in ms. */
const BEAT_INTERVAL_MS = 1_000;
/**
 * A leader that has not written for this long is hung (stopped, or its event loop stuck): a follower
 * ends its database session, which frees the lock. Its connection alone would keep it forever.
 */
const STALE_LEADER_MS = 15_000;
/** How long a process waits for a leader at start, and a request for one, in ms. */
const LEADER_WAIT_MS = 30_000;
/** A forwarded request's longest wait: past the longest `latencyMs` fault (120 s), in ms. */
const FORWARD_TIMEOUT_MS = 150_000;

/** Headers a follower adds to a forwarded request; the leader trusts them only with its own token. */
const PEER = {
  token: "x-paykit-peer-token",
  base: "x-paykit-peer-base",
  remote: "x-paykit-peer-remote",
  drop: "x-paykit-peer-drop",
  notLeader: "x-paykit-peer-not-leader",
} as const;
// Headers of one connection, not of the request (RFC 9110 section 7.6.1), plus the ones the relay sets
// itself (host, content-length; `expect`: the body is already read).
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

/** Where the leader answers its peers, as it published it in the store. */
interface LeaderInfo {
  url: string;
  token: string;
  pid: number;
  /** Its database session's backend pid, which holds the lock. */
  backendPid: number;
  /** The database's clock (epoch ms) at its last heartbeat. */
  beat: number;
}

/** Options of {@link clusterMember}. */
export interface ClusterOptions {
  /** The PostgreSQL URL. */
  url: string;
  /** What the leader's engine is created with. */
  engine: CreateEngineOptions;
  /** This process's URL as the others reach it. */
  peerUrl: string;
  /** The admin token, for the control calls of a follower (forwarded like any request). */
  adminToken: string;
  onError?: (error: unknown) => void;
}

/** A mock process of a cluster: a {@link MockEngine} that leads or forwards. */
export interface ClusterMember extends MockEngine {
  /** `leader` while this process holds the store, `follower` while it forwards. */
  readonly role: "leader" | "follower" | "stopped";
  /** Joins the cluster, reachable by the others at `peerUrl`; resolves once a leader is known. */
  join(peerUrl: string): Promise<void>;
  /** Closes the engine and the database session (another process takes over). */
  shutdown(): Promise<void>;
}

/**
 * A mock process of the cluster on a PostgreSQL store, not yet joined: serve it (so that its URL is
 * known), then {@link ClusterMember.join} with that URL. Requests wait for the join.
 */
export function clusterMember(options: Omit<ClusterOptions, "peerUrl">): ClusterMember {
  return new Member(options);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class Member implements ClusterMember {
  readonly #options: Omit<ClusterOptions, "peerUrl">;
  #peerUrl = "";
  #joined: Promise<void> | null = null;
  #followerControl: MockControl | null = null;
  #role: "leader" | "follower" | "stopped" = "follower";
  #session: SqlDatabase | null = null;
  #engine: MockEngine | null = null;
  #persister: Persister | null = null;
  #token = "";
  #leader: LeaderInfo | null = null;
  #account: AccountKeys | null = null;
  #electionTimer: ReturnType<typeof setTimeout> | undefined;
  #electing: Promise<void> | null = null;
  #shutdown: Promise<void> | null = null;
  #lastBeat = 0;

  constructor(options: Omit<ClusterOptions, "peerUrl">) {
    this.#options = options;
  }

  get role() {
    return this.#role;
  }

  join(peerUrl: string): Promise<void> {
    this.#peerUrl = peerUrl;
    this.#followerControl = createHttpControl({ url: peerUrl, adminToken: this.#options.adminToken });
    this.#joined ??= this.#start();
    return this.#joined;
  }

  async #start(): Promise<void> {
    await this.#connect();
    const deadline = Date.now() + LEADER_WAIT_MS;
    for (;;) {
      await this.#elect();
      if (this.#role === "leader") break;
      if (this.#account !== null && this.#leader !== null) break;
      if (Date.now() > deadline)
        throw new Error(`no mock process leads the store after ${LEADER_WAIT_MS} ms, and this one could not`);
      await sleep(ELECTION_INTERVAL_MS);
    }
    this.#scheduleElection();
  }

  async #connect(): Promise<SqlDatabase> {
    // `onLost` may fire while connecting (a refused connection ends it): before there is a session
    let session: SqlDatabase | undefined;
    session = await openPostgresSession(this.#options.url, (error) => {
      if (session !== undefined) this.#lost(session, error);
    });
    try {
      await migrate(session);
    } catch (error) {
      await session.close();
      throw error;
    }
    this.#session = session;
    return session;
  }

  /** The session ended (the database restarted, the network failed): lead no more, and join again. */
  #lost(session: SqlDatabase, error?: Error): void {
    if (this.#session !== session || this.#role === "stopped") return;
    this.#session = null;
    if (error) this.#options.onError?.(error);
    this.#stepDown();
    void session.close();
  }

  #stepDown(): void {
    if (this.#role !== "leader") return;
    this.#role = "follower";
    this.#persister?.stop();
    this.#engine?.close();
    this.#engine = null;
    this.#persister = null;
    this.#leader = null;
  }

  #scheduleElection(): void {
    if (this.#role === "stopped") return;
    this.#electionTimer = setTimeout(async () => {
      await this.#elect().catch((error: unknown) => this.#options.onError?.(error));
      this.#scheduleElection();
    }, ELECTION_INTERVAL_MS);
    this.#electionTimer.unref?.();
  }

  /** One round: reconnect if needed; a follower tries for the lock and reads who leads. */
  #elect(): Promise<void> {
    this.#electing ??= (async () => {
      try {
        if (this.#role === "stopped") return;
        if (this.#role === "leader") {
          if (this.#session !== null) await this.#beat(this.#session);
          return;
        }
        const session = this.#session ?? (await this.#connect());
        if (await session.tryHoldLock?.(LEADER_LOCK)) await this.#lead(session);
        else await this.#follow(session);
      } finally {
        this.#electing = null;
      }
    })();
    return this.#electing;
  }

  async #lead(session: SqlDatabase): Promise<void> {
    const store = new SqlStateStore(session);
    const persister = new Persister(store, await store.load(), this.#options.onError);
    const engine = createEngine({ ...this.#options.engine, persistence: persister });
    try {
      await persister.saved();
      this.#token = randomToken();
      const info = { url: this.#peerUrl, token: this.#token, pid: process.pid };
      await session.query(
        `INSERT INTO paykit_sandbox (key, value)
         VALUES ($1, $2::jsonb || jsonb_build_object('backendPid', pg_backend_pid(),
                 'beat', extract(epoch FROM clock_timestamp()) * 1000))
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [LEADER_KEY, JSON.stringify(info)],
      );
      this.#lastBeat = Date.now();
    } catch (error) {
      persister.stop();
      engine.close();
      throw error;
    }
    if (this.#session !== session || this.#role === "stopped") {
      // the session was lost, or this process stopped, while taking over
      persister.stop();
      engine.close();
      return;
    }
    this.#engine = engine;
    this.#persister = persister;
    this.#account = engine.account;
    this.#leader = null;
    this.#role = "leader";
  }

  /** The leader's heartbeat: the row it published, stamped with the database's clock. */
  async #beat(session: SqlDatabase): Promise<void> {
    if (Date.now() - this.#lastBeat < BEAT_INTERVAL_MS) return;
    this.#lastBeat = Date.now();
    await session.query(
      `UPDATE paykit_sandbox
          SET value = jsonb_set(value, '{beat}', to_jsonb(extract(epoch FROM clock_timestamp()) * 1000))
        WHERE key = $1 AND value->>'token' = $2`,
      [LEADER_KEY, this.#token],
    );
  }

  async #follow(session: SqlDatabase): Promise<void> {
    const { rows } = await session.query<{ key: string; value: unknown; now: number }>(
      `SELECT key, value, extract(epoch FROM clock_timestamp()) * 1000 AS now
         FROM paykit_sandbox WHERE key = ANY($1::text[])`,
      [[LEADER_KEY, "state"]],
    );
    const leaderRow = rows.find((r) => r.key === LEADER_KEY);
    const leader = leaderRow?.value as LeaderInfo | undefined;
    if (leader !== undefined && Number(leaderRow?.now) - leader.beat > STALE_LEADER_MS) {
      // Hung, not dead: end the session that holds the lock (only if it still does), so that the next
      // try takes it. The hung process finds its session gone when it wakes, and follows.
      await session.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND pid = $1 AND objid = $2::bigint::oid`,
        [leader.backendPid, LEADER_LOCK],
      );
    }
    const sandbox = rows.find((r) => r.key === "state")?.value as SavedSandbox | undefined;
    this.#leader = leader ?? null;
    if (sandbox !== undefined) {
      const account = await session.query<{ settings: SavedAccount }>(
        "SELECT settings FROM paykit_accounts WHERE id = $1",
        [sandbox.defaultAccountId],
      );
      const saved = account.rows[0]?.settings;
      if (saved !== undefined) {
        this.#account = {
          accountId: saved.id,
          publicKey: saved.publicKey,
          secretKey: saved.secretKey,
          ...(saved.webhookSecret === null ? {} : { webhookSecret: saved.webhookSecret }),
        };
      }
    }
  }

  async dispatch(req: EngineRequest): Promise<EngineResponse> {
    if (this.#joined === null) throw new Error("join the cluster before serving it");
    await this.#joined;
    const engine = this.#engine;
    if (engine !== null) {
      const peer = this.#fromPeer(req);
      const response = await engine.dispatch(peer.req);
      // a dropResponse fault: the follower cuts its own client off
      if (response.drop && peer.trusted) return { status: 200, headers: { [PEER.drop]: "1" }, body: null };
      return response;
    }
    if (req.header(PEER.token) !== undefined) {
      // a follower took this process for the leader: it should ask the store again
      const response = errorResponse(
        new ApiError("INTERNAL_ERROR", "this mock process does not lead the store", { status: 421 }),
      );
      response.headers[PEER.notLeader] = "1";
      return response;
    }
    return this.#forward(req);
  }

  /** A request a follower forwarded, read with the client's base URL and address. */
  #fromPeer(req: EngineRequest): { req: EngineRequest; trusted: boolean } {
    const token = req.header(PEER.token);
    if (token === undefined) return { req, trusted: false };
    const header = (name: string) => (name.startsWith("x-paykit-peer-") ? undefined : req.header(name));
    // not one of ours: served as sent, its peer headers ignored
    if (!constantTimeEqual(token, this.#token)) return { req: { ...req, header }, trusted: false };
    const base = req.header(PEER.base);
    const remote = req.header(PEER.remote);
    return {
      req: {
        ...req,
        base: base ?? req.base,
        ...(remote === undefined ? {} : { remoteAddress: remote }),
        header,
      },
      trusted: true,
    };
  }

  async #forward(req: EngineRequest): Promise<EngineResponse> {
    const deadline = Date.now() + LEADER_WAIT_MS;
    for (;;) {
      const leader = this.#leader ?? (await this.#awaitLeader(deadline));
      if (leader === null) return unavailable("no mock process leads the store right now");
      if (this.#engine !== null) return this.#engine.dispatch(req);
      let answer = await relay(leader, req);
      if ("error" in answer && answer.staleSocket) answer = await relay(leader, req);
      if ("error" in answer) {
        this.#leader = null;
        // refused: nothing reached the leader, so asking the next one is safe
        if (answer.error.code === "ECONNREFUSED" && Date.now() < deadline) {
          await sleep(ELECTION_INTERVAL_MS);
          void this.#elect().catch(() => {});
          continue;
        }
        return unavailable(
          "the mock process leading the store stopped while answering: the request may or may not have taken effect",
        );
      }
      if (answer.headers[PEER.notLeader] === "1") {
        this.#leader = null;
        await sleep(ELECTION_INTERVAL_MS);
        continue;
      }
      if (answer.headers[PEER.drop] === "1") return { status: 200, headers: {}, body: null, drop: true };
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined) continue;
        // a HEAD answer's length is the GET's: kept; any other is the body's, set by node:http
        if (!HOP_BY_HOP.has(name) || (name === "content-length" && req.method === "HEAD"))
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      return { status: answer.status, headers, body: req.method === "HEAD" ? null : answer.body };
    }
  }

  async #awaitLeader(deadline: number): Promise<LeaderInfo | null> {
    while (this.#leader === null && this.#engine === null && this.#role !== "stopped") {
      await this.#elect().catch(() => {});
      if (this.#leader !== null || this.#engine !== null) break;
      if (Date.now() > deadline) return null;
      await sleep(ELECTION_INTERVAL_MS);
    }
    return this.#leader;
  }

  handle(request: Request): Promise<Response> {
    return handleWebRequest(request, (req) => this.dispatch(req));
  }

  get control(): MockControl {
    const control = this.#engine?.control ?? this.#followerControl;
    if (control === null) throw new Error("join the cluster before controlling it");
    return control;
  }

  get account(): AccountKeys {
    if (this.#account === null) throw new Error("the cluster has no default account yet");
    return this.#account;
  }

  close(): void {
    void this.shutdown();
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  async #stop(): Promise<void> {
    this.#role = "stopped";
    clearTimeout(this.#electionTimer);
    await this.#electing?.catch(() => {});
    clearTimeout(this.#electionTimer);
    const persister = this.#persister;
    this.#engine?.close();
    await persister?.saved().catch(() => {});
    persister?.stop();
    this.#engine = null;
    await this.#session?.close();
    this.#session = null;
  }
}

function forwardedHeaders(req: EngineRequest, token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith("x-paykit-peer-")) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  headers[PEER.token] = token;
  headers[PEER.base] = req.base;
  if (req.remoteAddress !== undefined) headers[PEER.remote] = req.remoteAddress;
  return headers;
}

// Kept-alive connections to the leader: a follower relays every request of its clients over them.
const peerAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

type Relayed =
  | { status: number; headers: IncomingHttpHeaders; body: Buffer }
  | { error: NodeJS.ErrnoException; staleSocket: boolean };

/** Sends a request to the leader as the client sent it, with the peer headers; never rejects. */
function relay(leader: LeaderInfo, req: EngineRequest): Promise<Relayed> {
  return new Promise((resolve) => {
    const url = new URL(`${req.path}${req.query ? `?${req.query}` : ""}`, leader.url);
    const https = url.protocol === "https:";
    const body =
      req.method === "GET" || req.method === "HEAD" || req.body === null ? null : Buffer.from(req.body);
    const headers: OutgoingHttpHeaders = forwardedHeaders(req, leader.token);
    if (body !== null) headers["content-length"] = body.byteLength;
    let answered = false;
    const sent = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: req.method,
        headers,
        agent: https ? peerAgents.https : peerAgents.http,
        timeout: FORWARD_TIMEOUT_MS,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", (error) => resolve({ error, staleSocket: false }));
        res.on("aborted", () =>
          resolve({
            error: Object.assign(new Error("the answer was cut off"), { code: "ECONNRESET" }),
            staleSocket: false,
          }),
        );
      },
    );
    sent.on("timeout", () =>
      sent.destroy(Object.assign(new Error("no answer in time"), { code: "ETIMEDOUT" })),
    );
    // A kept-alive socket the leader closed while idle fails with ECONNRESET before any answer: the
    // case Node documents for sending again (http.ClientRequest's reusedSocket).
    sent.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ error, staleSocket: sent.reusedSocket && !answered && error.code === "ECONNRESET" }),
    );
    sent.end(body ?? undefined);
  });
}

function unavailable(message: string): EngineResponse {
  return errorResponse(
    new ApiError("INTERNAL_ERROR", message, { status: 503, headers: { "retry-after": "1" } }),
  );
}
