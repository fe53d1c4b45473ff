import { validate } from "@paykit/contract";
import type * as z from "zod/mini";
import type { ControlOperations } from "../domain/control.js";
import { ApiError } from "../domain/errors.js";
import type { AccountNeeds, RequestHold, StatePersistence } from "../domain/persistence.js";
import type { ControlCall, ControlRequest } from "./call.js";
import { controlFrom, type MockControl, MockControlError } from "./mock-control.js";
import { callNeeds } from "./needs.js";
import { CONTROL_CALLS, LIST_CALLS } from "./table.js";

/** Checks a call's input against its schema, as the HTTP route does: `INVALID_DATA` with details otherwise. */
export function checkedInput(schema: z.ZodMiniType, input: unknown): unknown {
  const result = validate(schema, input);
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  return result.data;
}

/** A request's query without its undefined values (an option not given). */
export function definedQuery(query: ControlRequest["query"]): Record<string, string | number | boolean> {
  const defined: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) defined[key] = value;
  return defined;
}

/** What an in-process engine's durable store offers its direct control (see {@link StatePersistence}). */
export interface DirectControlStore {
  saved(): Promise<void>;
  prepare?(needs: AccountNeeds): Promise<RequestHold>;
}

/**
 * The {@link MockControl} of an in-process engine: each call of the control table run on its
 * operations with the same checks as over HTTP, no HTTP. With a durable store, the accounts a call
 * names are read in first, and a call resolves once its changes are saved, like an HTTP call (and
 * rejects with the store's 503 when not). In-process calls are the admin's.
 */
export function directControl(ops: ControlOperations, store?: DirectControlStore): MockControl {
  async function send<W>(call: ControlCall<never, W, unknown>, request: ControlRequest): Promise<W> {
    let hold: RequestHold = { release: () => {} };
    try {
      if (store?.prepare !== undefined) {
        const body = (request.body ?? {}) as Record<string, unknown>;
        const text = (value: unknown) => (typeof value === "string" ? value : undefined);
        hold = await store.prepare(
          callNeeds(call, {
            id: request.id ?? "",
            accountId: text(call.scope === "bodyAccount" ? body.accountId : request.query?.accountId),
            publicKey: call.scope === "open" ? text(body.publicKey) : undefined,
            admin: true,
          }),
        );
      }
      const body = call.body === null ? undefined : checkedInput(call.body, request.body ?? {});
      const query = call.query === null ? {} : checkedInput(call.query, definedQuery(request.query));
      const input = { id: request.id ?? "", body, query, caller: undefined };
      const run = async () => {
        const wire = await call.run(ops, input as never);
        if (store !== undefined) await (hold.saved === undefined ? store.saved() : hold.saved());
        return wire;
      };
      return await (hold.run === undefined ? run() : hold.run(run));
    } catch (error) {
      if (error instanceof ApiError)
        throw new MockControlError(error.status, error.code, error.message, error.details);
      throw error;
    } finally {
      hold.release();
    }
  }
  return controlFrom(send, CONTROL_CALLS, LIST_CALLS);
}
