import type { ErrorDetail } from "@paykit/contract";
import type { ControlListEntry, ControlListOptions } from "../domain/control.js";
import type { DeliveryFilter } from "../domain/deliveries.js";
import type { ControlListName, ListPage } from "../domain/lists.js";
import type { ControlCall } from "./call.js";
import type { ControlCalls } from "./table.js";

/** The options of each control list: its page and account, and for the delivery log its filters and order. */
export type ControlListQuery = {
  [L in ControlListName]: L extends "webhooks" ? ControlListOptions & DeliveryFilter : ControlListOptions;
};

/** Each control call of the table as a typed method: its arguments, and a promise of its result. */
export type ControlMethods = {
  [K in keyof ControlCalls]: ControlCalls[K] extends ControlCall<infer Args, unknown, infer Result>
    ? (...args: Args) => Promise<Result>
    : never;
};

/**
 * The control API of the mock as typed methods (docs/decisions/mock-control-api.md),
 * one per entry of the control table, plus `listPage`/`listAll` over its lists. Two implementations
 * share it: direct calls on an in-process engine, and HTTP calls to `/_mock/*` of a running mock.
 * Every failure rejects with a {@link MockControlError} carrying the service's error body.
 */
export interface MockControl extends ControlMethods {
  /**
   * One page of a control list with the cursor of the next (`{ data, nextCursor }`, as the HTTP lists
   * answer): `nextCursor` is null on the last page.
   *
   * @example
   * const first = await mock.control.listPage("payins", { accountId, limit: 50 });
   * const second = await mock.control.listPage("payins", { accountId, limit: 50, cursor: first.nextCursor! });
   */
  listPage<L extends ControlListName>(
    list: L,
    options?: ControlListQuery[L],
  ): Promise<ListPage<ControlListEntry[L]>>;
  /**
   * Every entry of a control list, in its order, fetched one page at a time as the caller iterates
   * (one page in memory); records created meanwhile do not shift the pages still to come.
   *
   * @example
   * for await (const payin of mock.control.listAll("payins", { accountId })) console.log(payin.status);
   */
  listAll<L extends ControlListName>(
    list: L,
    options?: ControlListQuery[L],
  ): AsyncGenerator<ControlListEntry[L], void, undefined>;
}

/** A control call the mock refused: the status and error body it answered. */
export class MockControlError extends Error {
  override readonly name = "MockControlError";
  /** HTTP status of the refusal. */
  readonly status: number;
  /** The error code (`NOT_FOUND`, `INVALID_DATA`, …). */
  readonly code: string;
  /** Failing fields, when any. */
  readonly details: ErrorDetail[] | undefined;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/**
 * Every entry of a paged list, one page fetched at a time as the caller iterates: each page starts
 * after the previous page's last entry, so records created meanwhile shift nothing.
 */
export async function* eachEntry<T, O extends ControlListOptions>(
  fetchPage: (options: O) => Promise<ListPage<T>>,
  options: O = {} as O,
): AsyncGenerator<T, void, undefined> {
  let cursor = options.cursor;
  for (;;) {
    const page = await fetchPage({ ...options, cursor });
    for (const entry of page.data) yield entry;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}

/** Builds a {@link MockControl} from one function that sends any call of the table. */
export function controlFrom(
  send: <W>(call: ControlCall<never, W, unknown>, request: import("./call.js").ControlRequest) => Promise<W>,
  calls: ControlCalls,
  lists: Record<ControlListName, keyof ControlCalls>,
): MockControl {
  const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, call] of Object.entries(calls) as [string, ControlCall<unknown[], unknown, unknown>][]) {
    methods[name] = async (...args) => call.result(await send(call as never, call.request(...args)));
  }
  // Every option goes in the query: the list's schema refuses one it does not take (a delivery filter
  // on another list), naming it.
  const listPage = <L extends ControlListName>(list: L, options: ControlListQuery[L] = {}) =>
    send(calls[lists[list]] as never, {
      query: { ...(options as Record<string, string | number | undefined>) },
    }) as Promise<ListPage<ControlListEntry[L]>>;
  return {
    ...(methods as unknown as ControlMethods),
    listPage,
    listAll: (list, options) => eachEntry((o) => listPage(list, o), options),
  };
}
