import type { ErrorDetail } from "@paykit/contract";
import { ApiError } from "../domain/errors.js";

/**
 * Largest request body the service takes, in bytes (413 over 1 MiB:
 * docs/decisions/error-body.md).
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request as the engine sees it, already read off its transport: the node:http adapter builds one
 * without allocating a web `Request`, which keeps POST /payin fast (bench/run.mjs).
 */
export interface EngineRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Path below the mock's base URL, starting with `/`, without the query. */
  path: string;
  /** The raw query string without `?` (empty when none). */
  query: string;
  /** Absolute base URL the client reached the mock at (origin plus any path prefix), no trailing slash. */
  base: string;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The body as text; `null` when the request had none. */
  body: string | null;
  /** The client's network address when the transport knows it (node:http); keys the rate limit. */
  remoteAddress?: string;
}

/** An answer of the engine, before a transport writes it. */
export interface EngineResponse {
  /** HTTP status. */
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** Body text or bytes; `null` for none. */
  body: string | Uint8Array | null;
  /** A `dropResponse` fault matched: the transport cuts the connection instead of answering. */
  drop?: boolean;
}

const JSON_TYPE = "application/json; charset=utf-8";

/** A JSON answer. */
export function json(status: number, value: unknown, headers?: Record<string, string>): EngineResponse {
  // A fresh headers object per answer: a transport may add its own (`connection: close`).
  return {
    status,
    headers: headers ? { "content-type": JSON_TYPE, ...headers } : { "content-type": JSON_TYPE },
    body: JSON.stringify(value),
  };
}

/** The JSON answer of an {@link ApiError}. */
export function errorResponse(error: ApiError): EngineResponse {
  const body: { code: string; message: string; details?: ErrorDetail[] } = {
    code: error.code,
    message: error.message,
  };
  if (error.details) body.details = error.details;
  return json(error.status, body, error.headers);
}

/** Whether a content type is JSON (`application/json` or `application/*+json`, any parameters). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  if (value === "application/json") return true;
  const semi = value.indexOf(";");
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Parses a JSON request body, answering `INVALID_DATA` for malformed JSON. */
export function parseJsonBody(text: string | null): unknown {
  if (text === null || text.length === 0)
    throw new ApiError("INVALID_DATA", "the request body must be a JSON object", {
      details: [{ path: "", message: "is required" }],
    });
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_DATA", "the request body is not valid JSON", {
      details: [{ path: "", message: "is not valid JSON" }],
    });
  }
}
