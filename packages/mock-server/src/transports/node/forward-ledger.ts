// Exactly-once forwarding between the mock processes of a PostgreSQL store. A follower names each request
// it forwards that may change something (any method but GET and HEAD) with an id of its own, and sends it
// again under that id whenever it got no answer: a reset connection, a leader that stopped, died or hung,
// a new leader. The leader writes each such request's answer into `paykit_forwarded` in the very
// transaction that commits the request's changes, so whichever process leads next answers a re-sent
// request from that row and never runs it twice. A request still running when a batch holding changes is
// taken (a control call that waits for its webhooks) gets a row without an answer in that batch, in case
// some of those changes are its own: a re-send then learns that its changes may be saved and its answer
// was lost, and is not run again. A request that changed nothing gets no row: running it again is harmless.
import { ApiError } from "../../domain/errors.js";
import { type EngineRequest, type EngineResponse, errorResponse } from "../../http/messages.js";
import type { BatchWriter } from "../../stores/persister.js";
import { guardWrite, SCHEMA_VERSION } from "../../stores/sql/migrations.js";
import { CommitUnknownError, type SqlDatabase, type SqlQueryable } from "../../stores/sql/sql-client.js";
import type { SaveBatch } from "../../stores/sql/state-store.js";

/**
 * How long an answer is kept for a re-send, in ms. A follower sends again at most its wait for a leader
 * (30 s) after a relay failed, plus the new leader's takeover: ten minutes leaves room for a slow one.
 */
export const FORWARDED_KEEP_MS = 10 * 60_000;
/** How often the leader drops answers older than {@link FORWARDED_KEEP_MS}, in ms. */
const PRUNE_INTERVAL_MS = 10_000;
/** Rows dropped per statement, so a big backlog never holds the leader's session for long. */
const PRUNE_BATCH = 1_000;
/** Statements per prune round: past this, the next round goes on. */
const PRUNE_ROUNDS = 20;

/**
 * What became of a request the ledger served: `saved` (its changes and answer committed together),
 * `none` (it changed nothing), `recorded` (answered from the row of an earlier run), `failed` (its save
 * failed: nothing of it is stored) or `unknown` (its save was cut off while committing).
 */
export type ServedOutcome = "saved" | "none" | "recorded" | "failed" | "unknown";

interface Slot {
  readonly id: string;
  /** The persister's change count when the request started. */
  startMarks: number;
  /** Running in the engine (not only looked up). */
  running: boolean;
  /** The answer, once the engine gave it (before its changes are saved). */
  answer: EngineResponse | null;
  /** A batch was taken with a row naming this request and no answer yet: its answer is written after. */
  marked: boolean;
  outcome: ServedOutcome;
  /** Resolves when the first run is answered: what a copy of the request sent meanwhile answers. */
  readonly done: Promise<{ answer: EngineResponse; outcome: ServedOutcome }>;
  finish(result: { answer: EngineResponse; outcome: ServedOutcome }): void;
}

interface Row {
  id: string;
  answer: EngineResponse | null;
}

/**
 * The leader's record of forwarded requests: which run here now, which answers go into the next batch,
 * and the `paykit_forwarded` rows a re-sent request is answered from. One per leadership.
 */
export class ForwardLedger {
  readonly #session: SqlDatabase;
  readonly #toPeer: (response: EngineResponse) => EngineResponse;
  readonly #slots = new Map<string, Slot>();
  readonly #byRequest = new WeakMap<EngineRequest, Slot>();
  /** Answered requests whose changes are in the batch not taken yet. */
  #pending: Slot[] = [];
  /** Rows for the transaction about to start (set and taken in one synchronous step). */
  #bound: { rows: Row[]; slots: Slot[] } | null = null;
  #marks: () => number = () => 0;
  #pruneTimer: ReturnType<typeof setInterval> | undefined;
  #pruning = false;
  readonly #known: number;

  /**
   * `toPeer` turns an engine's answer into what the leader sends a follower (a dropped answer, marked);
   * `knownSchema` is the newest schema version this process may write to.
   */
  constructor(
    session: SqlDatabase,
    toPeer: (response: EngineResponse) => EngineResponse,
    knownSchema: number = SCHEMA_VERSION,
  ) {
    this.#session = session;
    this.#toPeer = toPeer;
    this.#known = knownSchema;
  }

  /** Reads the persister's change count: two readings tell whether anything changed between them. */
  countChanges(marks: () => number): void {
    this.#marks = marks;
  }

  /**
   * The leader's session as its state store sees it: a transaction started by {@link writer} also
   * writes the forwarded answers bound to it, before it commits.
   */
  get database(): SqlDatabase {
    const session = this.#session;
    return {
      ...session,
      transaction: (work) => {
        const bound = this.#bound;
        this.#bound = null;
        if (bound === null || bound.rows.length === 0) return session.transaction(work);
        return session.transaction(async (tx) => {
          const result = await work(tx);
          await writeRows(tx, bound.rows);
          return result;
        });
      },
    };
  }

  /**
   * Wraps the state store's writer: each batch carries the answers of the requests whose changes it
   * holds, and a row without an answer for each request still running that may have changed something.
   * Taken in the same synchronous step as the persister takes its changes.
   */
  writer(store: BatchWriter): BatchWriter {
    return {
      write: (batch: SaveBatch) => {
        const slots = this.#pending;
        this.#pending = [];
        const rows: Row[] = slots.map((slot) => ({ id: slot.id, answer: slot.answer }));
        const marks = this.#marks();
        for (const slot of this.#slots.values()) {
          if (!slot.running || slot.answer !== null || slot.marked || marks <= slot.startMarks) continue;
          slot.marked = true;
          rows.push({ id: slot.id, answer: null });
          slots.push(slot);
        }
        this.#bound = { rows, slots };
        let written: Promise<void>;
        try {
          written = store.write(batch);
        } finally {
          this.#bound = null;
        }
        return written.then(
          () => {
            for (const slot of slots) if (slot.answer !== null) slot.outcome = "saved";
          },
          (error: unknown) => {
            const outcome = error instanceof CommitUnknownError ? "unknown" : "failed";
            for (const slot of slots) slot.outcome = outcome;
            throw error;
          },
        );
      },
    };
  }

  /** The engine's answer to a request, before its changes are saved (the engine's `beforeSave`). */
  answered(req: EngineRequest, response: EngineResponse): void {
    const slot = this.#byRequest.get(req);
    if (slot === undefined || slot.answer !== null) return;
    slot.answer = this.#toPeer(response);
    if (!slot.marked && this.#marks() > slot.startMarks) this.#pending.push(slot);
  }

  /**
   * Serves a forwarded request once: a copy of one running here waits for its answer; a re-sent one
   * (`resent`) is answered from its row when an earlier run left one; otherwise `run` runs it.
   */
  async serve(
    id: string,
    resent: boolean,
    req: EngineRequest,
    run: (req: EngineRequest) => Promise<EngineResponse>,
  ): Promise<{ answer: EngineResponse; outcome: ServedOutcome }> {
    const running = this.#slots.get(id);
    if (running !== undefined) return running.done;
    const slot = newSlot(id);
    this.#slots.set(id, slot);
    let result: { answer: EngineResponse; outcome: ServedOutcome } | undefined;
    try {
      const found = resent ? await this.#find(id) : null;
      if (found !== null) {
        result = { answer: found, outcome: "recorded" };
        return result;
      }
      // from here to the engine's answer in one synchronous step for the common (synchronous) route
      slot.startMarks = this.#marks();
      slot.running = true;
      this.#byRequest.set(req, slot);
      const response = this.#toPeer(await run(req));
      if (slot.answer === null) slot.answer = response;
      if (slot.outcome === "none" && this.#pending.includes(slot)) {
        // answered, but the save the engine waited for did not take its row (a failed store)
        this.#pending = this.#pending.filter((s) => s !== slot);
        slot.outcome = "failed";
      }
      if (slot.marked && slot.outcome !== "unknown" && slot.outcome !== "failed") {
        // a batch holding changes it may have made named it without its answer: the answer follows
        try {
          await writeRows(this.#session, [{ id, answer: slot.answer }]);
          slot.outcome = "saved";
        } catch {
          slot.outcome = "unknown";
        }
      }
      result = { answer: slot.answer, outcome: slot.outcome };
      return result;
    } catch (error) {
      slot.outcome = "unknown";
      throw error;
    } finally {
      this.#slots.delete(id);
      slot.finish(result ?? { answer: unknownAnswer(), outcome: "unknown" });
    }
  }

  /** The answer an earlier run left for `id`; `null` when none ran to a commit. */
  async #find(id: string): Promise<EngineResponse | null> {
    const { rows } = await this.#session.query<{ status: number | null; headers: string; body: string }>(
      "SELECT status, headers, encode(body, 'base64') AS body FROM paykit_forwarded WHERE id = $1",
      [id],
    );
    const row = rows[0];
    if (row === undefined) return null;
    if (row.status === null) return unknownAnswer();
    return {
      status: row.status,
      headers: JSON.parse(row.headers) as Record<string, string>,
      body: row.body === null ? null : Buffer.from(row.body, "base64"),
    };
  }

  /** Starts dropping rows past {@link FORWARDED_KEEP_MS}, in batches, until {@link close}. */
  startPruning(onError: (error: unknown) => void): void {
    this.#pruneTimer = setInterval(() => {
      if (this.#pruning) return;
      this.#pruning = true;
      this.#prune()
        .catch(onError)
        .finally(() => {
          this.#pruning = false;
        });
    }, PRUNE_INTERVAL_MS);
    this.#pruneTimer.unref?.();
  }

  async #prune(): Promise<void> {
    for (let round = 0; round < PRUNE_ROUNDS && this.#pruneTimer !== undefined; round++) {
      // Guarded like every write: a database a newer mock migrated is not this process's to prune.
      const { rows } = await this.#session.transaction(async (tx) => {
        await guardWrite(tx, this.#known);
        return tx.query<{ n: number }>(
          `WITH gone AS (
           DELETE FROM paykit_forwarded WHERE id IN (
             SELECT id FROM paykit_forwarded
              WHERE created_at < clock_timestamp() - $1 * interval '1 millisecond' LIMIT $2)
           RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
          [FORWARDED_KEEP_MS, PRUNE_BATCH],
        );
      });
      if ((rows[0]?.n ?? 0) < PRUNE_BATCH) return;
    }
  }

  /** Stops pruning (this process leads no more). */
  close(): void {
    clearInterval(this.#pruneTimer);
    this.#pruneTimer = undefined;
  }
}

function newSlot(id: string): Slot {
  let finish!: Slot["finish"];
  const done = new Promise<{ answer: EngineResponse; outcome: ServedOutcome }>((resolve) => {
    finish = resolve;
  });
  return { id, startMarks: 0, running: false, answer: null, marked: false, outcome: "none", done, finish };
}

/** Writes answers (or, with `answer: null`, a row saying the request ran and its answer is not known yet). */
async function writeRows(tx: SqlQueryable, rows: readonly Row[]): Promise<void> {
  // Arrays, not JSON: a body may hold any text, and jsonb refuses some (a lone surrogate).
  await tx.query(
    `INSERT INTO paykit_forwarded (id, status, headers, body, created_at)
     SELECT x.id, x.status, x.headers, decode(x.body, 'base64'), clock_timestamp()
       FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS x(id, status, headers, body)
     ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, headers = EXCLUDED.headers, body = EXCLUDED.body
      WHERE EXCLUDED.status IS NOT NULL`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.answer?.status ?? null),
      rows.map((r) => (r.answer === null ? null : JSON.stringify(r.answer.headers))),
      rows.map((r) => (r.answer?.body == null ? null : Buffer.from(r.answer.body).toString("base64"))),
    ],
  );
}

/** A re-sent request whose first run's changes may be saved, and whose answer was lost. */
function unknownAnswer(): EngineResponse {
  return errorResponse(
    new ApiError(
      "INTERNAL_ERROR",
      "the mock process leading the store stopped while answering this request: its changes may be saved, and it is not run twice; read the resource back before sending it again",
      { status: 503, headers: { "retry-after": "1" } },
    ),
  );
}
