// What the route families share: how request bodies are read (the merchant API's strict JSON bodies,
// the control API's optional ones), the JSON answer helper, and the route of a cached JSON document.
import { validate } from "@paykit/contract";
import type * as z from "zod/mini";
import { ApiError } from "../domain/errors.js";
import {
  type EngineRequest,
  type EngineResponse,
  isJsonContentType,
  json,
  parseJsonBody,
} from "./messages.js";
import type { Route } from "./router.js";

/** The JSON body of an API POST: 415 without a JSON content type, 400 when malformed. */
export function apiBody(req: EngineRequest): unknown {
  if (!isJsonContentType(req.header("content-type"))) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json");
  }
  return objectBody(parseJsonBody(req.body));
}

/** A parsed body that must be a JSON object: `null`, arrays, strings and numbers are `INVALID_DATA`. */
export function objectBody(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw new ApiError("INVALID_DATA", `the request body must be a JSON object, not ${kind}`, {
      details: [{ path: "", message: "must be a JSON object" }],
    });
  }
  return value;
}

/** The JSON body of a control call: may be empty; when a content type is sent it must be JSON. */
export function controlBody(req: EngineRequest): unknown {
  if (req.body === null || req.body.trim().length === 0) return {};
  const type = req.header("content-type");
  if (type !== undefined && !isJsonContentType(type)) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json");
  }
  return objectBody(parseJsonBody(req.body));
}

/** Checks input against a schema: `INVALID_DATA` with every failing path otherwise. */
export function checked<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  const result = validate(schema, input);
  if (!result.success) throw new ApiError("INVALID_DATA", result.message, { details: result.details });
  return result.data;
}

/** A JSON answer, 200 unless said. */
export const ok = (value: unknown, status = 200): EngineResponse => json(status, value);

/**
 * A control call that takes no body: none, or an empty JSON object (the dashboard sends `{}`). Anything
 * else (`null`, `[]`, `42`, fields) is refused before the call acts, rather than ignored.
 */
export function noBody(req: EngineRequest): void {
  if (req.body === null || req.body.trim() === "") return;
  let value: unknown;
  try {
    value = JSON.parse(req.body);
  } catch {
    value = undefined;
  }
  const empty =
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  if (!empty) {
    throw new ApiError("INVALID_DATA", "this control call takes no body (send none, or {})", {
      details: [{ path: "", message: "must be empty: this call takes no body" }],
    });
  }
}

/**
 * A route answering a JSON document built on its first request and kept as text (the OpenAPI
 * documents): open like the pages, the same bytes to every caller.
 */
export function documentRoute(path: string, build: () => unknown): Route {
  let text: string | undefined;
  return {
    method: "GET",
    path,
    kind: "page",
    handle: () => {
      text ??= JSON.stringify(build());
      return { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: text };
    },
  };
}
