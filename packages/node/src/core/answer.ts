import type { ErrorDetail } from "@paykit/contract";
import { UNKNOWN_ERROR } from "../errors/api-error.js";
import type { ContractModule, ResponseSchema } from "./endpoint.js";

/**
 * The schema through zod's ahead-of-time compiler (memoised by the contract): a valid answer is
 * checked several times faster, and anything else falls back to the ordinary parser, same issues.
 */
export function fastSchema<T>(contract: ContractModule, schema: ResponseSchema<T>): ResponseSchema<T> {
  type Compilable = Parameters<ContractModule["compiled"]>[0];
  return contract.compiled(schema as unknown as Compilable) as unknown as ResponseSchema<T>;
}

/** Returned by {@link readSuccess} for a 2xx whose body is not a JSON object. */
export const UNREADABLE: unique symbol = Symbol("unreadable");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A 2xx answer, parsed with its schema. Lenient by decision (docs/decisions/node-client.md): an
 * answer that breaks the contract still carries the payment's data, and losing it would be worse than
 * returning it, so it is returned as received and `mismatch` reports every field that does not match.
 */
export function readSuccess<T>(
  contract: ContractModule,
  schema: ResponseSchema<T>,
  text: string,
  mismatch: (details: ErrorDetail[]) => void,
): T | typeof UNREADABLE {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return UNREADABLE;
  }
  if (!isPlainObject(json)) return UNREADABLE;
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  mismatch(contract.issuesToDetails(result.error.issues));
  return json as T;
}

/** The JSON of an error answer, or undefined (a proxy's HTML page). */
export function errorBodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `code` of an error body, or undefined (non-JSON answers are "without a documented code"). */
export function errorCodeOf(body: unknown): string | undefined {
  const code = isPlainObject(body) ? body.code : undefined;
  return typeof code === "string" && code !== UNKNOWN_ERROR ? code : undefined;
}
