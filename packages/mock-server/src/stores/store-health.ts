// Whether a shared store's database is in reach, told once per change: a database that restarts must
// not fill the log with one line per failed statement of every process
// (docs/decisions/shared-sandbox-every-process-serves.md). While it is out of reach, requests are answered 503
// and a probe asks every 250 ms; its first answer is logged, and the schema is checked again then (a
// newer mock may have migrated the database meanwhile).
import { CommitUnknownError, TransactionEndedError } from "./sql/sql-client.js";

/** How often a store out of reach is asked again. */
export const PROBE_INTERVAL_MS = 250;

/** Error codes of node's sockets that mean the server is not there (or went away). */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/** Whether an error says the database is out of reach (its connection), not that a statement failed. */
export function isOutOfReach(error: unknown): boolean {
  if (error instanceof CommitUnknownError) return true;
  // one session ended (its idle limit) says nothing of the store; a restart that ended it does
  if (error instanceof TransactionEndedError) return isOutOfReach(error.cause);
  const fields = (error ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof fields.code === "string" ? fields.code : "";
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash, not accepting connections yet)
  if (code.startsWith("08") || code.startsWith("57P") || SOCKET_CODES.has(code)) return true;
  const message = typeof fields.message === "string" ? fields.message : "";
  return /connection terminated|connection (is )?closed|connection error|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)/i.test(
    message,
  );
}

/** One database's reachability, as one process sees it. */
export class StoreHealth {
  readonly #probe: () => Promise<void>;
  readonly #log: (line: string) => void;
  readonly #where: string;
  #downSince: number | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  /**
   * `probe` resolves when the database answers (and throws what makes it unusable otherwise); `where`
   * names the store in the two lines, without its password.
   */
  constructor(probe: () => Promise<void>, log: (line: string) => void, where: string) {
    this.#probe = probe;
    this.#log = log;
    this.#where = where;
  }

  /** Whether the store is out of reach now. */
  get down(): boolean {
    return this.#downSince !== null;
  }

  /**
   * Takes an error of a statement: true when it means the store is out of reach (logged once for the
   * outage, so the caller logs nothing more), false for any other error.
   */
  failed(error: unknown): boolean {
    if (!isOutOfReach(error)) return false;
    if (this.#downSince === null && !this.#stopped) {
      this.#downSince = Date.now();
      this.#log(
        `lost the PostgreSQL store at ${this.#where} (${reasonOf(error)}); ` +
          `trying again every ${PROBE_INTERVAL_MS} ms without logging each try`,
      );
      this.#schedule();
    }
    return true;
  }

  /** Stops probing (the process is stopping). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#ask(), PROBE_INTERVAL_MS);
    this.#timer.unref?.();
  }

  async #ask(): Promise<void> {
    try {
      await this.#probe();
    } catch (error) {
      // still out of reach; an answer that makes the store unusable (a newer schema) is the probe's to tell
      if (isOutOfReach(error)) return this.#schedule();
    }
    const since = this.#downSince;
    if (since === null || this.#stopped) return;
    this.#downSince = null;
    this.#log(
      `the PostgreSQL store at ${this.#where} is back (out of reach for ${Math.round((Date.now() - since) / 1000)} s)`,
    );
  }
}

/** An error's reason for the log line: its message, never a connection string. */
function reasonOf(error: unknown): string {
  const cause = error instanceof CommitUnknownError ? (error.cause ?? error) : error;
  const message = (cause as { message?: unknown } | null)?.message;
  const text = typeof message === "string" && message.length > 0 ? message : String(cause);
  return text.replace(/postgres(ql)?:\/\/\S+/gi, "the store's URL").slice(0, 200);
}
