// What the PostgreSQL stores share: the client shape they accept and the table-name check.

/** A PostgreSQL client as the stores use it: a `pg` `Pool` (or `Client`), or anything with its `query`. */
export interface PostgresClient {
  /** Runs one parameterized statement (`$1`, `$2`, …) and answers its rows. */
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** Refuses, naming the store, a table name that is not a (schema-qualified) identifier. */
export function assertTableName(table: string, store: string): void {
  if (typeof table !== "string" || !IDENTIFIER.test(table)) {
    throw new TypeError(
      `${store}: table must be letters, digits and underscores, optionally schema-qualified`,
    );
  }
}

/** Refuses, naming the store, anything without a `query` method. */
export function assertQueryClient(client: unknown, store: string): void {
  if (
    client === null ||
    typeof client !== "object" ||
    typeof (client as PostgresClient).query !== "function"
  ) {
    throw new TypeError(`${store}: client must be a pg Pool or Client`);
  }
}

/** The name of a table's index on `column`, in the table's schema (`hooks.order` → `hooks_order_…`). */
export function indexName(table: string, column: string): string {
  return `${table.replace(".", "_")}_${column}_idx`;
}
