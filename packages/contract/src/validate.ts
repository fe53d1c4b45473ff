import type * as z from "zod/mini";
import type { ErrorDetail } from "./error.js";

/** The outcome of checking a request against its schema: the parsed value, or every failing field. */
export type ValidationResult<T> =
  | { success: true; data: T }
  | { success: false; code: "INVALID_DATA" | "INVALID_PIX_KEY"; message: string; details: ErrorDetail[] };

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
  literal: "the expected value",
};

/**
 * Messages in the words a merchant's engineer reads in an error body. Nothing here echoes the
 * input: a card number or CVV must never reach an error message (docs/decisions/card.md).
 */
function describeIssue(issue: RawIssue): string | undefined {
  if (issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    return "is required";
  }
  switch (issue.code) {
    case "invalid_type":
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string")
        return min <= 1 ? "must not be empty" : `must have at least ${min} characters`;
      if (issue.origin === "array") return `must have at least ${min} item${min === 1 ? "" : "s"}`;
      return issue.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `must have at most ${max} characters`;
      if (issue.origin === "array") return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "regex" ? "has an invalid format" : `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return "is not a known field";
    case "invalid_union":
      return "does not match any accepted shape";
    default:
      return undefined;
  }
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/** Number of leaf issues, used to pick the union branch the caller most likely meant. */
function weight(issues: readonly Issue[]): number {
  let total = 0;
  for (const issue of issues) total += issue.code === "unrecognized_keys" ? issue.keys.length : 1;
  return total;
}

function collect(issues: readonly Issue[], prefix: readonly PropertyKey[], out: ErrorDetail[]): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        out.push({ path: joinPath([...path, key]), message: "is not a known field" });
    } else if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // A card is a token or full card data: report the branch closest to what was sent,
      // instead of "matches no shape".
      const best = issue.errors.reduce((a, b) => (weight(b) < weight(a) ? b : a));
      collect(best, path, out);
    } else if (issue.code === "invalid_union" && "discriminator" in issue && issue.discriminator) {
      const options = (issue as { options?: unknown[] }).options;
      out.push({
        path: joinPath(path),
        message: options ? `must be one of ${options.map(String).join(", ")}` : issue.message,
      });
    } else {
      out.push({ path: joinPath(path), message: issue.message });
    }
  }
}

/** Turns zod issues into the service's `details` shape: dot paths with array indices. */
export function issuesToDetails(issues: readonly Issue[]): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  collect(issues, [], out);
  return out;
}

/** Whether an issue came from a PIX key rule, which the service reports as `INVALID_PIX_KEY`. */
function isPixKeyIssue(issue: Issue): boolean {
  return (
    issue.code === "custom" && (issue.params as { code?: string } | undefined)?.code === "INVALID_PIX_KEY"
  );
}

/**
 * Checks `input` against a request schema of this package and answers either the parsed value or
 * the service's error (`INVALID_DATA`, or `INVALID_PIX_KEY` when only the PIX key is wrong) with
 * every failing path.
 */
export function validate<S extends z.ZodMiniType>(schema: S, input: unknown): ValidationResult<z.output<S>> {
  const result = schema.safeParse(input, { error: describeIssue });
  if (result.success) return { success: true, data: result.data };
  const issues = result.error.issues;
  const details = issuesToDetails(issues);
  const code = issues.length > 0 && issues.every(isPixKeyIssue) ? "INVALID_PIX_KEY" : "INVALID_DATA";
  const first = details[0];
  const message = first
    ? `${first.path || "body"} ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ""}`
    : "the request is invalid";
  return { success: false, code, message, details };
}
