// Several mock processes on one PostgreSQL store (`--store postgres://…`): a sandbox a team shares, behind
// one address. One process at a time is the leader: it holds the store's advisory lock on its own
// database session, keeps the state in its engine, saves every change through that same session, runs
// the due work and sends the webhooks. Every other process answers its clients by forwarding each request
// to the leader, and tries for the lock four times a second: when the leader stops or dies (its session,
// and the lock with it, ends), one of them reads the saved state back and leads from there. The engine
// stays the one place where a balance is checked and debited, so payouts spread over any number of
// processes can neither overdraw nor reuse a referenceId; the schema's constraints are the backstop.
// A forwarded request that got no answer (a reset connection, a leader that stopped, died or hung) is
// sent again under the same id until some process leads, this one included: the leader saves each
// answer with the changes it answers for, so none runs twice (forward-ledger.ts).
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { createHttpControl } from "../../control/http-client.js";
import type { MockControl } from "../../control/mock-control.js";
import type { AccountKeys } from "../../domain/accounts.js";
import { ApiError } from "../../domain/errors.js";
import { constantTimeEqual, randomToken } from "../../domain/ids.js";
import type { SavedAccount, SavedSandbox } from "../../domain/saved.js";
import { type CreateEngineOptions, createEngine, type MockEngine } from "../../http/engine.js";
import { type EngineRequest, type EngineResponse, errorResponse } from "../../http/messages.js";
import { handleWebRequest } from "../../http/web.js";
import { type StoreLoading, storeLoading } from "../../stores/open-store.js";
import { Persister } from "../../stores/persister.js";
import {
  assertSchemaKnown,
  guardWrite,
  knownVersion,
  MIGRATIONS,
  type Migration,
  migrate,
  SchemaTooNewError,
} from "../../stores/sql/migrations.js";
import {
  openPostgres,
  openPostgresSession,
  type SqlDatabase,
  shownUrl,
} from "../../stores/sql/sql-client.js";
import { SqlStateStore } from "../../stores/sql/state-store.js";
import { ForwardLedger } from "./forward-ledger.js";

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
  /** A forwarded request's id, the same on every send of it (see forward-ledger.ts). */
  request: "x-paykit-peer-request",
  /** 1 on the first send, more on a re-send. */
  attempt: "x-paykit-peer-attempt",
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
  /** How the leader reads accounts on use. @default the default account's fixed key, if any; 100000 records */
  loading?: StoreLoading;
  /** This process's URL as the others reach it. */
  peerUrl: string;
  /** The admin token, for the control calls of a follower (forwarded like any request). */
  adminToken: string;
  onError?: (error: unknown) => void;
  /**
   * Where a change of the store's state is reported, one line each: the database went away, came
   * back, or was migrated by a newer mock. Never one line per attempt.
   */
  log?: (line: string) => void;
  /** The schema this process knows; a test passes one more migration to play a newer mock. */
  migrations?: readonly Migration[];
}

/** A mock process of a cluster: a {@link MockEngine} that leads or forwards. */
export interface ClusterMember extends MockEngine {
  /**
   * `leader` while this process holds the store, `follower` while it forwards, `refused` once a newer
   * mock migrated the store (it then answers every request 503, naming both schema versions).
   */
  readonly role: "leader" | "follower" | "refused" | "stopped";
  /** While this process leads: accounts read in on use, and taken out of memory again. */
  readonly accountLoads: { loads: number; unloads: number };
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
  #role: "leader" | "follower" | "refused" | "stopped" = "follower";
  #session: SqlDatabase | null = null;
  #engine: MockEngine | null = null;
  #persister: Persister | null = null;
  /** While this process leads: the connections accounts are read on. */
  #reader: SqlDatabase | null = null;
  /** While this process leads: the answers of forwarded requests (exactly-once forwarding). */
  #ledger: ForwardLedger | null = null;
  /** Relays in flight, by the token of the leader they went to: cut when another process leads. */
  readonly #relays = new Set<{ token: string; controller: AbortController }>();
  #token = "";
  #leader: LeaderInfo | null = null;
  #account: AccountKeys | null = null;
  #electionTimer: ReturnType<typeof setTimeout> | undefined;
  #electing: Promise<void> | null = null;
  #shutdown: Promise<void> | null = null;
  #lastBeat = 0;
  /** The schema version this process knows; a newer one in the store makes it refuse work. */
  readonly #known: number;
  #refusal: SchemaTooNewError | null = null;
  /** Since when the database is out of reach (epoch ms), or null while it answers. */
  #downSince: number | null = null;

  constructor(options: Omit<ClusterOptions, "peerUrl">) {
    this.#options = options;
    this.#known = knownVersion(options.migrations ?? MIGRATIONS);
  }

  get role() {
    return this.#role;
  }

  /** The leader's accounts read in on use and taken out again (zeros while it follows). */
  get accountLoads(): { loads: number; unloads: number } {
    return this.#persister?.accountLoads ?? { loads: 0, unloads: 0 };
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
      if (this.#refusal !== null) throw this.#refusal;
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
      if (session === undefined) return;
      // the connection ended by itself (not closed by this process): logged once, not per retry
      if (this.#session === session && this.#role !== "stopped" && this.#role !== "refused")
        this.#databaseDown(error?.message ?? "the connection ended");
      this.#lost(session);
    });
    try {
      // every new session checks the schema first: a newer mock may have migrated it meanwhile
      await migrate(session, this.#options.migrations);
    } catch (error) {
      await session.close();
      throw error;
    }
    this.#session = session;
    this.#databaseBack();
    return session;
  }

  /** One line when the database goes out of reach; the retries that follow log nothing. */
  #databaseDown(reason: string): void {
    if (this.#downSince !== null || this.#joined === null) return;
    this.#downSince = Date.now();
    this.#log(
      `lost the PostgreSQL store at ${shownUrl(this.#options.url)} (${reason}); ` +
        `trying again every ${ELECTION_INTERVAL_MS} ms without logging each try`,
    );
  }

  /** One line when the database answers again. */
  #databaseBack(): void {
    if (this.#downSince === null) return;
    const seconds = Math.round((Date.now() - this.#downSince) / 1000);
    this.#downSince = null;
    this.#log(
      `the PostgreSQL store at ${shownUrl(this.#options.url)} is back (out of reach for ${seconds} s)`,
    );
  }

  #log(line: string): void {
    (this.#options.log ?? ((text: string) => process.stderr.write(`paykit-mock: ${text}\n`)))(line);
  }

  /**
   * A newer mock migrated the store: this process stops leading, writes nothing more, releases the
   * lock (a process of the newer version takes over) and answers every request 503. Logged once.
   */
  #refuse(refusal: SchemaTooNewError): void {
    if (this.#refusal !== null || this.#role === "stopped") return;
    this.#refusal = refusal;
    this.#stepDown();
    this.#role = "refused";
    clearTimeout(this.#electionTimer);
    // ending the session frees the leader's lock at once
    const session = this.#session;
    this.#session = null;
    void session?.close();
    this.#log(`${refusal.message}. This process serves nothing more: every request is answered 503`);
  }

  /**
   * What an election round's failure means: a newer schema refuses this process, a database out of
   * reach is logged once (the round is tried again); anything else is the caller's to report.
   */
  #roundFailed(error: unknown, session: SqlDatabase | null): void {
    if (error instanceof SchemaTooNewError) {
      this.#refuse(error);
      return;
    }
    if (session === null || this.#session !== session || isConnectionError(error)) {
      this.#databaseDown((error as Error)?.message ?? String(error));
      if (session !== null) this.#lost(session);
      return;
    }
    throw error;
  }

  /** The session ended (the database restarted, the network failed): lead no more, and join again. */
  #lost(session: SqlDatabase): void {
    if (this.#session !== session || this.#role === "stopped" || this.#role === "refused") return;
    this.#session = null;
    this.#stepDown();
    void session.close();
  }

  #stepDown(): void {
    this.#closeReader();
    if (this.#role !== "leader") return;
    this.#role = "follower";
    this.#persister?.stop();
    this.#engine?.close();
    this.#ledger?.close();
    this.#engine = null;
    this.#persister = null;
    this.#ledger = null;
    this.#leader = null;
  }

  #closeReader(): void {
    const reader = this.#reader;
    this.#reader = null;
    void reader?.close().catch(() => {});
  }

  #scheduleElection(): void {
    if (this.#role === "stopped" || this.#role === "refused") return;
    this.#electionTimer = setTimeout(async () => {
      await this.#elect().catch((error: unknown) => this.#options.onError?.(error));
      this.#scheduleElection();
    }, ELECTION_INTERVAL_MS);
    this.#electionTimer.unref?.();
  }

  /** One round: reconnect if needed; a follower tries for the lock and reads who leads. */
  #elect(): Promise<void> {
    this.#electing ??= (async () => {
      let session = this.#session;
      try {
        if (this.#role === "stopped" || this.#role === "refused") return;
        if (this.#role === "leader") {
          if (session !== null) await this.#beat(session);
          return;
        }
        session ??= await this.#connect();
        // a follower checks the schema every round (one small query): it never forwards for, or takes
        // over, a store a newer mock migrated
        await assertSchemaKnown(session, this.#known);
        if (await session.tryHoldLock?.(LEADER_LOCK)) await this.#lead(session);
        else await this.#follow(session);
      } catch (error) {
        this.#roundFailed(error, session);
      } finally {
        this.#electing = null;
      }
    })();
    return this.#electing;
  }

  async #lead(session: SqlDatabase): Promise<void> {
    // Under the lock, before reading the state back: a newer mock may have migrated the store since
    // the last check. Every save checks again in its own transaction (guardWrite).
    await assertSchemaKnown(session, this.#known);
    // the store writes through the ledger's view of the session: each batch carries the answers of the
    // forwarded requests whose changes it holds
    const ledger = new ForwardLedger(session, peerAnswer, this.#known);
    const store = new SqlStateStore(ledger.database, { knownSchema: this.#known });
    const storeError = (error: unknown) => {
      if (error instanceof SchemaTooNewError) this.#refuse(error);
      else this.#options.onError?.(error);
    };
    // A failed save leaves this engine with changes the store does not hold: it leads no more (its
    // session, and the lock, end), and a leader reads the committed state back.
    // the sandbox and its default account now; every other account when a request needs it
    const loading = this.#options.loading ?? storeLoading(this.#options.engine);
    // Accounts are read on their own connections: a big account's read never holds up the saves, nor
    // the heartbeat that tells the others this process is alive (both go through the session).
    const reader = await openPostgres(this.#options.url, { max: 2 });
    this.#reader = reader;
    let start: Awaited<ReturnType<SqlStateStore["loadStart"]>>;
    try {
      start = await store.loadStart(loading.defaultPublicKey, {
        records: loading.wholeAccounts ? true : "active",
      });
    } catch (error) {
      this.#closeReader();
      throw error;
    }
    const persister = new Persister(
      ledger.writer(store),
      start,
      storeError,
      { giveUp: () => this.#lost(session) },
      store,
      {
        source: new SqlStateStore(reader),
        ...(loading.cacheRecords === undefined ? {} : { cacheRecords: loading.cacheRecords }),
      },
    );
    const onError = this.#options.engine.onError;
    const engine = createEngine({
      ...this.#options.engine,
      onError: (error) => (error instanceof SchemaTooNewError ? this.#refuse(error) : onError?.(error)),
      persistence: persister,
      beforeSave: (req, response) => ledger.answered(req, response),
    });
    ledger.countChanges(() => persister.marks);
    try {
      await persister.saved();
      this.#token = randomToken();
      const info = { url: this.#peerUrl, token: this.#token, pid: process.pid };
      await session.transaction(async (tx) => {
        await guardWrite(tx, this.#known);
        await tx.query(
          `INSERT INTO paykit_sandbox (key, value)
         VALUES ($1, $2::jsonb || jsonb_build_object('backendPid', pg_backend_pid(),
                 'beat', extract(epoch FROM clock_timestamp()) * 1000))
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
          [LEADER_KEY, JSON.stringify(info)],
        );
      });
      this.#lastBeat = Date.now();
    } catch (error) {
      persister.stop();
      engine.close();
      this.#closeReader();
      throw error;
    }
    if (this.#session !== session || this.#role === "stopped") {
      // the session was lost, or this process stopped, while taking over
      persister.stop();
      engine.close();
      this.#closeReader();
      return;
    }
    ledger.startPruning((error) => this.#options.onError?.(error));
    this.#ledger = ledger;
    this.#engine = engine;
    this.#persister = persister;
    this.#account = engine.account;
    this.#leader = null;
    this.#role = "leader";
    // relays still waiting on the previous leader are sent again, and served here
    this.#cutRelays(null);
  }

  /**
   * The leader's heartbeat: the row it published, stamped with the database's clock, after the
   * schema check of every write (a newer mock's migration refuses this process here at the latest).
   */
  async #beat(session: SqlDatabase): Promise<void> {
    if (Date.now() - this.#lastBeat < BEAT_INTERVAL_MS) return;
    this.#lastBeat = Date.now();
    await session.transaction(async (tx) => {
      await guardWrite(tx, this.#known);
      await tx.query(
        `UPDATE paykit_sandbox
            SET value = jsonb_set(value, '{beat}', to_jsonb(extract(epoch FROM clock_timestamp()) * 1000))
          WHERE key = $1 AND value->>'token' = $2`,
        [LEADER_KEY, this.#token],
      );
    });
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
    // a new leader published itself: relays to the one before (hung, or gone) are sent again to it
    if (leader !== undefined) this.#cutRelays(leader.token);
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
    if (this.#refusal !== null) return this.#refused(req);
    const engine = this.#engine;
    if (engine !== null) {
      const peer = this.#fromPeer(req);
      const id = peer.trusted ? req.header(PEER.request) : undefined;
      if (id !== undefined) {
        const served = await this.#serveOnce(engine, peer.req, id, Number(req.header(PEER.attempt)) > 1);
        if (this.#refusal !== null && served.status >= 500) return this.#refused(req);
        return served;
      }
      const response = await engine.dispatch(peer.req);
      // its save met a newer schema: nothing of it was written, and the answer says why
      if (this.#refusal !== null && response.status >= 500) return this.#refused(req);
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

  /** The answer of a process a newer mock's migration refused: 503, naming both versions. */
  #refused(req: EngineRequest): EngineResponse {
    const refusal = this.#refusal as SchemaTooNewError;
    if (req.header(PEER.token) !== undefined) {
      // a follower of the newer version: it should ask the store who leads now
      const response = errorResponse(
        new ApiError("INTERNAL_ERROR", "this mock process does not lead the store", { status: 421 }),
      );
      response.headers[PEER.notLeader] = "1";
      return response;
    }
    return errorResponse(
      new ApiError(
        "INTERNAL_ERROR",
        `this mock process refuses to serve: ${refusal.message}. Nothing was stored for this request; ` +
          "send it to a process of the newer version",
        { status: 503 },
      ),
    );
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
    // A read is sent again freely; anything else carries one id on every send, so that no leader runs
    // it twice: whichever leads answers a re-sent one from the store (forward-ledger.ts).
    const id = req.method === "GET" || req.method === "HEAD" ? null : randomToken();
    let deadline = Date.now() + LEADER_WAIT_MS;
    let failedToken: string | null = null;
    for (let attempt = 1; ; attempt++) {
      if (this.#refusal !== null) return this.#refused(req);
      const leader = this.#leader ?? (await this.#awaitLeader(deadline));
      const engine = this.#engine;
      if (engine !== null) {
        // this process leads now (it may have won the election while the request waited): it serves it
        if (id === null) return engine.dispatch(req);
        const answer = await this.#serveOnce(engine, req, id, attempt > 1);
        if (answer.headers[PEER.notLeader] !== "1") return fromLeader(answer, req);
      } else if (leader === null) {
        return unavailable(
          attempt === 1 || id === null
            ? "no mock process leads the store right now"
            : "the mock process leading the store stopped while answering, and no other took over in time: the request may or may not have taken effect",
        );
      } else {
        const answer = await this.#relay(leader, req, id, attempt);
        if (!("error" in answer) && answer.headers[PEER.notLeader] !== "1") return fromLeader(answer, req);
        if (this.#leader === leader) this.#leader = null;
        // each leader that fails gives the request a full wait for the next one
        if (leader.token !== failedToken) {
          failedToken = leader.token;
          deadline = Math.max(deadline, Date.now() + LEADER_WAIT_MS);
        }
        // a kept-alive socket the leader had closed while idle: sent again at once
        if ("error" in answer && answer.staleSocket) continue;
      }
      if (Date.now() > deadline)
        return unavailable(
          "the mock process leading the store stopped while answering, and no other took over in time: the request may or may not have taken effect",
        );
      await sleep(ELECTION_INTERVAL_MS);
    }
  }

  /**
   * Runs a request a follower may send again (or one this process forwarded before it led), once: its
   * answer is saved with its changes. When its fate is not known here (its save was cut off, or failed
   * as this process stopped leading), the sender is told to send it again: the next leader answers it
   * from the store, or runs it if nothing of it was saved.
   */
  async #serveOnce(
    engine: MockEngine,
    req: EngineRequest,
    id: string,
    resent: boolean,
  ): Promise<EngineResponse> {
    const ledger = this.#ledger;
    if (ledger === null) return notLeaderAnswer();
    const { answer, outcome } = await ledger.serve(id, resent, req, (r) => engine.dispatch(r));
    const settled = outcome === "saved" || outcome === "recorded" || this.#engine === engine;
    return outcome === "unknown" || !settled ? notLeaderAnswer() : answer;
  }

  /** Sends a request to the leader; cut (and then sent again) when another process leads meanwhile. */
  async #relay(leader: LeaderInfo, req: EngineRequest, id: string | null, attempt: number): Promise<Relayed> {
    const entry = { token: leader.token, controller: new AbortController() };
    this.#relays.add(entry);
    try {
      return await relay(leader, req, id, attempt, entry.controller.signal);
    } finally {
      this.#relays.delete(entry);
    }
  }

  /** Cuts the relays in flight to any leader but the one of token `keep` (null: every relay). */
  #cutRelays(keep: string | null): void {
    for (const entry of this.#relays) {
      if (entry.token === keep) continue;
      this.#relays.delete(entry);
      entry.controller.abort();
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
    this.#ledger?.close();
    this.#engine = null;
    const reader = this.#reader;
    this.#reader = null;
    await reader?.close().catch(() => {});
    await this.#session?.close();
    this.#session = null;
  }
}

function forwardedHeaders(
  req: EngineRequest,
  token: string,
  id: string | null,
  attempt: number,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith("x-paykit-peer-")) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  headers[PEER.token] = token;
  headers[PEER.base] = req.base;
  if (id !== null) {
    headers[PEER.request] = id;
    headers[PEER.attempt] = String(attempt);
  }
  if (req.remoteAddress !== undefined) headers[PEER.remote] = req.remoteAddress;
  return headers;
}

// Kept-alive connections to the leader: a follower relays every request of its clients over them.
const peerAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

type Relayed =
  | { status: number; headers: IncomingHttpHeaders; body: Buffer }
  | { error: NodeJS.ErrnoException; staleSocket: boolean };

/** Sends a request to the leader as the client sent it, with the peer headers; never rejects. */
function relay(
  leader: LeaderInfo,
  req: EngineRequest,
  id: string | null,
  attempt: number,
  signal: AbortSignal,
): Promise<Relayed> {
  return new Promise((resolve) => {
    const url = new URL(`${req.path}${req.query ? `?${req.query}` : ""}`, leader.url);
    const https = url.protocol === "https:";
    const body =
      req.method === "GET" || req.method === "HEAD" || req.body === null ? null : Buffer.from(req.body);
    const headers: OutgoingHttpHeaders = forwardedHeaders(req, leader.token, id, attempt);
    if (body !== null) headers["content-length"] = body.byteLength;
    let answered = false;
    const sent = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: req.method,
        headers,
        agent: https ? peerAgents.https : peerAgents.http,
        timeout: FORWARD_TIMEOUT_MS,
        signal,
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

// Errors of a connection, not of a statement: node's socket errors, SQLSTATE classes 08 (connection
// exception) and 57P (operator intervention: a shutdown, a crash, a terminated backend), and
// node-postgres's own messages for a client whose connection ended.
function isConnectionError(error: unknown): boolean {
  const code = String((error as { code?: unknown })?.code ?? "");
  if (/^E[A-Z]+$/.test(code) || /^08|^57P/.test(code)) return true;
  return /Connection terminated|not queryable|could not connect/i.test(String((error as Error)?.message));
}

/** The leader's answer as a follower passes it to its client: a dropped one cut off, hop-by-hop headers left out. */
function fromLeader(
  answer: { status: number; headers: IncomingHttpHeaders; body: EngineResponse["body"] },
  req: EngineRequest,
): EngineResponse {
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

/** What the leader sends a follower for an engine's answer: a `dropResponse` fault is marked, not cut. */
function peerAnswer(response: EngineResponse): EngineResponse {
  return response.drop ? { status: 200, headers: { [PEER.drop]: "1" }, body: null } : response;
}

/** The answer to a follower that took this process for the leader: it asks the store again and re-sends. */
function notLeaderAnswer(): EngineResponse {
  const response = errorResponse(
    new ApiError("INTERNAL_ERROR", "this mock process does not lead the store", { status: 421 }),
  );
  response.headers[PEER.notLeader] = "1";
  return response;
}

function unavailable(message: string): EngineResponse {
  return errorResponse(
    new ApiError("INTERNAL_ERROR", message, { status: 503, headers: { "retry-after": "1" } }),
  );
}
