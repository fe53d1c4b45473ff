// The shape of one control call: what an entry of the control table (table.ts) says, and the helper
// that types an entry from its parts. Everything else about a call (its HTTP route, its direct and HTTP
// `MockControl` methods, its OpenAPI operation) is derived from the entry, never written again.
import type * as z from "zod/mini";
import type { AfterCommit, ControlOperations } from "../domain/control.js";

/**
 * Whom a control call concerns, which a shared sandbox's access rules authorize: anyone (`open`), every
 * account (`global`; `allAccounts` when the call reads each account, as the account list does), the
 * account whose keys make the call (`caller`), the account named by the
 * `:id` in the path (`account`) or owning it (`payin`, `payout`, `delivery`), the account of
 * `?accountId=` or everyone without it (`queried`), the account of the body's `accountId` or everyone
 * without it (`bodyAccount`).
 */
export type ControlScope =
  | "open"
  | "global"
  | "allAccounts"
  | "caller"
  | "account"
  | "payin"
  | "payout"
  | "delivery"
  | "queried"
  | "bodyAccount";

/** A control call's arguments as a request: the `:id` of its path, its query and its JSON body. */
export interface ControlRequest {
  /** The resource id of a path with `:id`. */
  id?: string;
  /** Query values, typed (`limit` a number, `awaitWebhooks` a boolean); undefined ones are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** The JSON body; none for a call that takes none. */
  body?: unknown;
}

/** What a control call's operation receives: its checked body and query, and who called. */
export interface ControlInput<B, Q> {
  /** The `:id` of the path ("" for a path without one). */
  id: string;
  body: B;
  query: Q;
  /**
   * The account whose own keys (Basic pk:sk) authorized the call on a shared sandbox, or, for a
   * `caller` call on any mock, whose keys it was sent with; none for the admin token or no keys.
   */
  caller: string | undefined;
}

type Schema = z.ZodMiniType;
type Checked<S> = S extends Schema ? z.output<S> : undefined;

/** One control call: its HTTP face, its schemas, how its arguments map to a request, and its operation. */
export interface ControlCall<Args extends unknown[] = never, Wire = unknown, Result = unknown> {
  readonly method: "GET" | "POST" | "DELETE";
  /** The path under `/_mock`, with `:id` for the resource it acts on. */
  readonly path: string;
  readonly scope: ControlScope;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  /** The success status. */
  readonly status: 200 | 201;
  /** The JSON body's schema; null: the call takes no body (none, or `{}`). */
  readonly body: Schema | null;
  /** The query's schema; null: the call reads no query. */
  readonly query: Schema | null;
  /** The method's arguments as a request. */
  request(...args: Args): ControlRequest;
  /**
   * Runs the call on one turn's operations with its checked input; answers the HTTP body, or what
   * waits for it once the turn committed (webhook attempts, a listener's poll).
   */
  run(ops: ControlOperations, input: ControlInput<never, never>): Promise<Wire | AfterCommit<Wire>>;
  /** The method's result from the HTTP body (a list's page data, nothing for an acknowledgement). */
  result(wire: Wire): Result;
}

/** Types one entry of the control table from its parts (the operation's input from the schemas). */
export function controlCall<
  Args extends unknown[],
  B extends Schema | null,
  Q extends Schema | null,
  Wire,
  Result = Wire,
>(entry: {
  method: "GET" | "POST" | "DELETE";
  path: string;
  scope: ControlScope;
  summary: string;
  status?: 200 | 201;
  body: B;
  query: Q;
  request: (...args: Args) => ControlRequest;
  run: (
    ops: ControlOperations,
    input: ControlInput<Checked<B>, Checked<Q>>,
  ) => Promise<Wire | AfterCommit<Wire>>;
  result?: (wire: Wire) => Result;
}): ControlCall<Args, Wire, Result> {
  return {
    ...entry,
    status: entry.status ?? 200,
    run: entry.run as ControlCall<Args, Wire, Result>["run"],
    result: entry.result ?? ((wire: Wire) => wire as unknown as Result),
  };
}
