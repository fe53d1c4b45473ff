// What the SQL stores need of a database, and the two engines behind it: PostgreSQL through
// node-postgres (`--store postgres://…`, shared by many mock processes) and PGlite (`--data-dir`, the
// same SQL in WASM on one machine; the evaluation is in docs/decisions/sandbox-stores.md). Both drivers are optional
// peer dependencies, imported only when that mode is asked for.

/** One query's rows. */
export interface SqlResult<R> {
  rows: R[];
}

/** Something that runs a parameterized query: the database, or one transaction on it. */
export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  /** Runs several statements without parameters (a migration). */
  exec(sql: string): Promise<void>;
}

/** One statement and its parameters, for {@link OpenTransaction.batch}. */
export interface SqlStatement {
  text: string;
  params?: readonly unknown[];
}

/** A transaction held open across awaits: what a shared store runs one request in. */
export interface OpenTransaction extends SqlQueryable {
  /**
   * Runs statements in one round trip (pipelined, each with its parameters), and commits after them
   * when `commit` is set (rejecting as {@link commit} does). Answers each statement's rows. A
   * statement that fails leaves the transaction to roll back (the ones after it do nothing).
   */
  batch(
    statements: readonly SqlStatement[],
    options?: { commit?: boolean },
  ): Promise<SqlResult<Record<string, unknown>>[]>;
  /**
   * Commits; rejects with {@link CommitUnknownError} when the connection ended while committing (the
   * database may or may not have kept it), with {@link TransactionEndedError} when the server had
   * ended the session before (it did not), with the error otherwise (it did not).
   */
  commit(): Promise<void>;
  /** Rolls back (nothing of it is kept) and gives the connection back. Idempotent, never rejects. */
  rollback(): Promise<void>;
}

/** A database the mock's SQL stores read and write. */
export interface SqlDatabase extends SqlQueryable {
  /** Which engine: for messages and the bench. */
  readonly engine: "postgres" | "pglite";
  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Opens a transaction on a connection of its own, held until its commit or rollback. */
  begin(): Promise<OpenTransaction>;
  close(): Promise<void>;
}

/** A transaction whose COMMIT got no definite answer: the database may or may not have kept it. */
export class CommitUnknownError extends Error {
  override readonly name = "CommitUnknownError";
}

/**
 * A transaction whose session the server ended before its COMMIT reached it (the idle-in-transaction
 * limit on a starved process, a terminated backend): the server rolled it back, so nothing of it was
 * kept, and the work may run again on a new transaction.
 */
export class TransactionEndedError extends Error {
  override readonly name = "TransactionEndedError";
}

/** SQLSTATE of a session ended for sitting idle in a transaction (rolled back, never committed). */
const IDLE_IN_TRANSACTION_ENDED = "25P03";

/** Whether a statement failed because the server ended its session (a FATAL), not for its own sake. */
function sessionEnded(error: unknown): boolean {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return code === IDLE_IN_TRANSACTION_ENDED || severity === "FATAL" || severity === "PANIC";
}

/** A driver that is not installed: the message says what to install. */
export class SqlDriverMissingError extends Error {
  override readonly name = "SqlDriverMissingError";
}

async function importDriver<M>(name: string, mode: string): Promise<M> {
  try {
    return (await import(/* webpackIgnore: true */ name)) as M;
  } catch (cause) {
    throw new SqlDriverMissingError(
      `${mode} needs the ${name} package: npm install --save-dev ${name} (it is an optional peer dependency of @paykit/mock-server)`,
      { cause },
    );
  }
}

interface PgQueryable {
  query<R>(
    text: string | { name: string; text: string; values: unknown[] },
    params?: unknown[],
  ): Promise<SqlResult<R>>;
}

const statementNames = new Map<string, string>();
/** Clients whose errors are listened to (a client is reused by many transactions). */
const watched = new WeakSet<object>();
/** A prepared statement's name for a query text: the same text, the same name, on every connection. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `paykit_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}
interface PgClient extends PgQueryable {
  /** The driver's connection: its socket is corked while a batch is written. */
  connection?: { stream?: { cork?(): void; uncork?(): void } };
  release(error?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
}
interface PgPool extends PgQueryable {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: (client: PgClient) => void): unknown;
}
interface PgModule {
  default?: { Pool: new (config: object) => PgPool };
  Pool?: new (config: object) => PgPool;
}

/** The `options` a PostgreSQL URL gives the server at connection start (`?options=-c%20…`), or "". */
function startupOptionsOf(url: string): string {
  try {
    return new URL(url).searchParams.get("options") ?? "";
  } catch {
    return "";
  }
}

function withoutStartupOptions(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has("options")) return url;
    parsed.searchParams.delete("options");
    return parsed.toString();
  } catch {
    return url;
  }
}

/** A PostgreSQL database at `url` (`postgres://user@host:port/db`), through a node-postgres pool. */
export async function openPostgres(
  url: string,
  options: { max?: number; idleInTransactionMs?: number } = {},
): Promise<SqlDatabase> {
  const pg = await importDriver<PgModule>("pg", "--store postgres://…");
  const Pool = pg.Pool ?? pg.default?.Pool;
  if (!Pool) throw new SqlDriverMissingError("the pg package has no Pool export (pg 8.23 or later)");
  // A process stopped (SIGSTOP, a debugger) with a transaction open would hold its row locks, and
  // with them every other process, for as long as it stays stopped: the server ends such a session.
  // Set at connection start (libpq's `options`, after any the URL gives), not by a query on connect,
  // which would run beside the pool's first query on that connection.
  const startup =
    options.idleInTransactionMs === undefined
      ? undefined
      : [
          startupOptionsOf(url),
          `-c idle_in_transaction_session_timeout=${Math.floor(options.idleInTransactionMs)}`,
        ]
          .filter((part) => part !== "")
          .join(" ");
  // (node-postgres takes a URL's parameters over the config's: the URL goes without its `options`)
  const pool = new Pool({
    connectionString: startup === undefined ? url : withoutStartupOptions(url),
    max: options.max ?? 10,
    // a transaction's statements go in one write, its reads and writes each one round trip
    pipeline: true,
    ...(startup === undefined ? {} : { options: startup }),
  });
  // An idle connection that the server closes (a restart, a failover) must not crash the mock.
  pool.on("error", () => {});
  return {
    engine: "postgres",
    query: (text, params) => pool.query(text, params as unknown[]),
    // without parameters node-postgres uses the simple protocol, which takes several statements
    exec: async (sql) => void (await pool.query(sql)),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work({
          query: (text, params) => client.query(text, params as unknown[]),
          exec: async (sql) => void (await client.query(sql)),
        });
        await client.query("COMMIT");
        client.release();
        return result;
      } catch (error) {
        // a connection whose ROLLBACK fails is broken: destroy it rather than return it to the pool
        const broken = await client.query("ROLLBACK").then(
          () => false,
          () => true,
        );
        client.release(broken);
        throw error;
      }
    },
    async begin() {
      const client = await pool.connect();
      // A session the server ends while this transaction waits between two round trips (its idle
      // limit, a restart) is reported on the client: the next statement fails, and the client goes.
      if (!watched.has(client)) {
        watched.add(client);
        client.on("error", () => {});
      }
      // BEGIN goes with the transaction's first statement: one round trip less per request
      let begun = false;
      let ended = false;
      // what ended the session between two statements: no later statement (nor the COMMIT) reaches it
      let lost: Error | null = null;
      const onLost = (error: Error) => {
        lost ??= error;
      };
      client.on("error", onLost);
      const end = (broken: boolean) => {
        if (ended) return;
        ended = true;
        client.off("error", onLost);
        client.release(broken);
      };
      const ensureOpen = () => {
        if (lost === null) return;
        end(true);
        throw new TransactionEndedError(
          `the database ended this transaction's session before its commit (${lost.message})`,
          { cause: lost },
        );
      };
      // Statements go pipelined (node-postgres's pipeline mode): each is sent without waiting for the
      // one before, as a prepared statement with its parameters (never written into the text), all in
      // one write; BEGIN goes with the transaction's first, COMMIT with its last.
      const send = async (statements: readonly SqlStatement[], commit = false) => {
        ensureOpen();
        const opening = !begun;
        begun = true;
        const stream = client.connection?.stream;
        stream?.cork?.();
        const sent: Promise<SqlResult<Record<string, unknown>>>[] = [];
        try {
          if (opening) sent.push(client.query("BEGIN"));
          for (const { text, params } of statements)
            sent.push(
              params === undefined || params.length === 0
                ? client.query(text)
                : client.query({ name: statementName(text), text, values: params as unknown[] }),
            );
          if (commit) sent.push(client.query("COMMIT"));
        } finally {
          stream?.uncork?.();
        }
        const settled = await Promise.allSettled(sent);
        // the first failure is the cause: the statements after it ran in an aborted transaction (and
        // a COMMIT after it answered ROLLBACK)
        const failed = settled.find((result) => result.status === "rejected");
        // (with the COMMIT sent, a connection lost on any of them leaves the outcome to the server)
        if (failed !== undefined) {
          // A statement prepared on this connection before another process changed a table it reads
          // (a newer mock's migration) fails at every run: the connection goes with its prepared
          // statements, and the request, refused whole (an ERROR rolls back), runs again on a new one.
          if (isStalePlan(failed.reason)) {
            end(true);
            throw new TransactionEndedError(
              `a statement prepared before the database's tables changed (${(failed.reason as Error).message})`,
              { cause: failed.reason },
            );
          }
          if (commit) committing(failed.reason);
          // the session ended under this transaction (its idle limit passed while this process was
          // stopped, the server shut down): nothing of it is stored, and the request may run again
          if (sessionEnded(failed.reason)) {
            end(true);
            throw new TransactionEndedError(
              `the database ended this transaction's session before its commit (${(failed.reason as Error).message})`,
              { cause: failed.reason },
            );
          }
          throw failed.reason;
        }
        const results = settled.map(
          (result) => (result as PromiseFulfilledResult<SqlResult<Record<string, unknown>>>).value,
        );
        return results.slice(opening ? 1 : 0, commit ? -1 : undefined);
      };
      // An ERROR answer to COMMIT means rolled back; a connection cut (or a FATAL) while committing
      // leaves the transaction's fate to the server: it may be durable.
      const committing = (error: unknown): never => {
        // ended before the COMMIT was sent (ensureOpen)
        if (error instanceof TransactionEndedError) throw error;
        const refused = (error as { severity?: unknown }).severity === "ERROR";
        // ended for idling before the COMMIT arrived: the server rolled the transaction back
        if ((error as { code?: unknown }).code === IDLE_IN_TRANSACTION_ENDED) {
          end(true);
          throw new TransactionEndedError(
            `the database ended this transaction's session before its commit (${(error as Error).message})`,
            { cause: error },
          );
        }
        if (!refused) {
          end(true);
          throw new CommitUnknownError("the connection ended while committing", { cause: error });
        }
        throw error;
      };
      return {
        async query(text, params) {
          const [rows] = await send([{ text, ...(params === undefined ? {} : { params }) }]);
          return rows as SqlResult<never>;
        },
        exec: async (sql) => void (await send([{ text: sql }])),
        async batch(statements, options = {}) {
          const commit = options.commit === true;
          const results = await send(statements, commit);
          if (commit) end(false);
          return results;
        },
        async commit() {
          // committed with a batch already, or nothing ever sent
          if (ended) return;
          if (!begun) return end(false);
          ensureOpen();
          try {
            await client.query("COMMIT");
          } catch (error) {
            committing(error);
          }
          end(false);
        },
        async rollback() {
          if (ended) return;
          if (!begun) return end(false);
          const broken = await client.query("ROLLBACK").then(
            () => false,
            () => true,
          );
          end(broken);
        },
      };
    },
    close: () => pool.end(),
  };
}

interface PgliteQueryable {
  query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  exec(sql: string): Promise<unknown>;
}
interface PgliteInstance extends PgliteQueryable {
  transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
interface PgliteModule {
  PGlite: { create(dataDir: string): Promise<PgliteInstance> };
}

/** A PGlite database in `dataDir` (created on first use). */
export async function openPglite(dataDir: string): Promise<SqlDatabase> {
  const { PGlite } = await importDriver<PgliteModule>("@electric-sql/pglite", "--data-dir");
  const db = await PGlite.create(dataDir);
  return {
    engine: "pglite",
    begin: () => beginPglite(db),
    query: (text, params) => db.query(text, params),
    exec: async (sql) => void (await db.exec(sql)),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: (text, params) => tx.query(text, params),
          exec: async (sql) => void (await tx.exec(sql)),
        }),
      ),
    close: () => db.close(),
  };
}

/** Rolls a PGlite transaction back: thrown out of its callback, caught where it ends. */
const ROLLBACK = Symbol("rollback");

/**
 * A PGlite transaction held open across awaits: PGlite runs one transaction at a time, so this one
 * waits its turn, then holds the database until its commit or rollback. Statements go one by one with
 * their parameters (an in-process engine has no round trip to save).
 */
async function beginPglite(db: PgliteInstance): Promise<OpenTransaction> {
  let finish!: (commit: boolean) => void;
  let opened!: (tx: PgliteQueryable) => void;
  const open = new Promise<PgliteQueryable>((resolve) => {
    opened = resolve;
  });
  const done = db
    .transaction(async (tx) => {
      opened(tx);
      const commit = await new Promise<boolean>((resolve) => {
        finish = resolve;
      });
      if (!commit) throw ROLLBACK;
    })
    .catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
  // a transaction that could not start rejects `done` before `open`
  const tx = await Promise.race([
    open,
    done.then(() => Promise.reject(new Error("PGlite ended the transaction before it began"))),
  ]);
  let ended = false;
  const end = async (commit: boolean) => {
    if (ended) return;
    ended = true;
    finish(commit);
    await done;
  };
  return {
    query: (text, params) => tx.query(text, params),
    exec: async (sql) => void (await tx.exec(sql)),
    async batch(statements, options = {}) {
      const results: SqlResult<Record<string, unknown>>[] = [];
      try {
        for (const statement of statements) results.push(await tx.query(statement.text, statement.params));
      } catch (error) {
        await end(false);
        throw error;
      }
      if (options.commit) await end(true);
      return results;
    },
    commit: () => end(true),
    rollback: () => end(false).catch(() => {}),
  };
}

/** PostgreSQL's answer to a prepared statement whose tables changed under it ("cached plan must not change result type"). */
function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "0A000" && typeof message === "string" && message.includes("cached plan");
}

/** A database URL without its password, for messages. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ""}${parsed.host}${parsed.pathname}`;
  } catch {
    return "the given URL";
  }
}
