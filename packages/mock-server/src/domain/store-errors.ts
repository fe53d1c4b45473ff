// What a store that failed tells the engine: whether the request's changes are stored, and whether the
// request may simply run again (docs/decisions/shared-sandbox-lost-database-logging.md).

/**
 * The store could not run or commit a request's transaction: the engine answers 503 with this message
 * (which says whether the changes are stored), or runs the request again when `runAgain` (its
 * transaction ended before its commit, so nothing of it is stored).
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  constructor(
    message: string,
    /** Nothing of the request is stored and running it again is safe. */
    readonly runAgain: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of a transaction the store refused before anything was stored. */
export const NOT_STORED =
  "the mock's store failed to run this request: nothing of it is stored; send it again";
/** The message of a transaction cut off while committing. */
export const MAYBE_STORED =
  "the mock's store was cut off while committing this request's changes: they may or may not be stored; read the resource back (a payout by its referenceId) before sending the request again";
/** The message of a transaction the store ended before its commit, on every run. */
export const ENDED_BEFORE_COMMIT =
  "the mock's store ended this request's transaction before its commit, several times: nothing of it is stored; send it again";
