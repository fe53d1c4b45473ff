import { ApiError } from "./errors.js";
import type { MockState } from "./state.js";

/**
 * What makes an engine's state durable (the `--data-dir` and `--store` modes): a store that puts its
 * saved state into a new engine's, then saves every change. Memory mode has none.
 */
export interface StatePersistence {
  /** Called once with the engine's new state: fills it from the store and starts saving its changes. */
  attach(state: MockState): void;
  /**
   * Each request holds its accounts' locks until its transaction ends (a store several processes
   * serve): a request's waits (a latency fault) come after it, so that no lock is held through them.
   */
  readonly locksAccounts?: boolean;
  /**
   * Resolves once every change made so far is saved; the engine answers a request only then, so a
   * `201` is never lost by a crash. Rejects when the store failed to save them (with the 503 of
   * `changesNotStored` once the store says what happened to them).
   */
  saved(): Promise<void>;
  /**
   * How many times the state was read back from the store after a failed save. A request answered
   * across one was answered from changes the store does not hold, and must not be answered as done.
   */
  readonly reloads?: number;
  /**
   * Reads into memory the accounts a request needs before it runs (a store that loads accounts on
   * use), and holds them for it (a shared store locks them in its transaction); answers the hold,
   * released once the request's changes are saved. Absent: every account is in memory.
   */
  prepare?(needs: AccountNeeds): Promise<RequestHold>;
  /**
   * The retention sweep of a store with its own clock: removes the accounts unused for `retentionMs`
   * and deletes their rows in batches; answers the accounts removed. Without it, the engine sweeps
   * its memory on the real clock.
   */
  sweep?(retentionMs: number): Promise<string[]>;
}

/** A store's hold on what one request uses, from its `prepare` until its `release`. */
export interface RequestHold {
  /**
   * Runs the request: a store that commits each request on its own sees, in `work`, which changes
   * are this request's. @default work()
   */
  run?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Resolves once this request's changes are committed (the store's `saved()` when absent); rejects
   * as `saved()` does.
   */
  saved?(): Promise<void>;
  /** Ends the hold: the accounts may leave memory, a transaction still open rolls back. Idempotent. */
  release(): void;
}

/**
 * What a request names, for a store that reads accounts into memory on use: accounts by id, by the
 * public key of their credentials, or by a resource they hold; `all` for a call about every account.
 */
export interface AccountNeeds {
  all?: boolean;
  accountIds?: string[];
  /** Accounts by id whose records the request never reads (a reset): their settings suffice. */
  bareAccountIds?: string[];
  /** Every account, its records never read (the account list). */
  bareAll?: boolean;
  /**
   * The named accounts with every record (a list). Otherwise an account is read with its active
   * records (work to come) and the records the request names.
   */
  whole?: boolean;
  /** Payouts of the caller's account by `referenceId` (a new payout's uniqueness, a lookup). */
  payoutReferenceIds?: string[];
  publicKeys?: string[];
  payinIds?: string[];
  payoutIds?: string[];
  deliveryIds?: string[];
  threeDSTransactionIds?: string[];
}

/**
 * The 503 of a request whose changes a failed save did not store (`"no"`), or whose save was cut off
 * while committing (`"unknown"`): the engine then goes back to what its store holds
 * (docs/decisions/shared-sandbox-webhooks-after-commit.md).
 */
export function changesNotStored(outcome: "no" | "unknown"): ApiError {
  const message =
    outcome === "no"
      ? "the mock's store failed to save this request's changes: they are NOT stored, and the mock goes back to what its store holds; send the request again"
      : "the mock's store was cut off while committing this request's changes: they may or may not be stored; read the resource back (a payout by its referenceId) before sending the request again";
  return new ApiError("INTERNAL_ERROR", message, { status: 503, headers: { "retry-after": "1" } });
}

/**
 * The 503 of a request whose transaction the store ended before its commit (a session the database
 * closed for idling while the process was starved of CPU): nothing of it is stored, so the engine runs
 * the request again on a new transaction (up to {@link RUNS_PER_REQUEST} runs in all) and answers this
 * only when every run ended so.
 */
export class RunAgainError extends ApiError {
  constructor() {
    super(
      "INTERNAL_ERROR",
      "the mock's store ended this request's transaction before its commit, several times: nothing of it is stored; send it again",
      { status: 503, headers: { "retry-after": "1" } },
    );
  }
}

/** How many times the engine runs a request whose transaction keeps ending before its commit. */
export const RUNS_PER_REQUEST = 3;
