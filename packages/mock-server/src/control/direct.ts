import { validate } from "@paykit/contract";
import type * as z from "zod/mini";
import { ApiError } from "../domain/errors.js";
import type { ControlCall, ControlInput, ControlRequest } from "./call.js";
import { controlFrom, type MockControl, MockControlError } from "./mock-control.js";
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

/** Runs one control call on an engine: one turn of its store, then what the call waits for after it. */
export type ControlRunner = <W>(
  call: ControlCall<never, W, unknown>,
  input: ControlInput<unknown, unknown>,
) => Promise<W>;

/**
 * The {@link MockControl} of an in-process engine: each call of the control table run on one turn of
 * its store with the same checks as over HTTP, no HTTP. A call resolves once its turn committed (and
 * what it waits for is done), like an HTTP call, and rejects with the store's 503 when it failed.
 * In-process calls are the admin's.
 */
export function directControl(runCall: ControlRunner): MockControl {
  async function send<W>(call: ControlCall<never, W, unknown>, request: ControlRequest): Promise<W> {
    try {
      const body = call.body === null ? undefined : checkedInput(call.body, request.body ?? {});
      const query = call.query === null ? {} : checkedInput(call.query, definedQuery(request.query));
      return await runCall(call, { id: request.id ?? "", body, query, caller: undefined });
    } catch (error) {
      if (error instanceof ApiError)
        throw new MockControlError(error.status, error.code, error.message, error.details);
      throw error;
    }
  }
  return controlFrom(send, CONTROL_CALLS, LIST_CALLS);
}
