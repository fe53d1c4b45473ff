import { isStorableText, STORABLE_TEXT_MESSAGE } from "@paykit/contract/rules";
import { PaykitValidationError } from "../errors/validation-error.js";

/**
 * Builds a request path from a template, percent-encoding every value, so an id holding `/`, `?`
 * or `#` never changes the route. `.` and `..` are refused: URL parsers collapse them even when
 * percent-encoded (docs/decisions/how-the-code-is-shaped.md).
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== "string" || value.length === 0 || value === "." || value === "..") {
      throw new PaykitValidationError("INVALID_DATA", "id must be a non-empty id string", [
        { path: "id", message: "must be a non-empty id string" },
      ]);
    }
    // encodeURIComponent throws a URIError on a lone surrogate: refuse it as the contract's text rule does.
    if (!isStorableText(value)) {
      throw new PaykitValidationError("INVALID_DATA", `id ${STORABLE_TEXT_MESSAGE}`, [
        { path: "id", message: STORABLE_TEXT_MESSAGE },
      ]);
    }
    out += encodeURIComponent(value) + (strings[i + 1] ?? "");
  }
  return out;
}

/** A query string (with its `?`) of the defined values, or "" when there are none. */
export function queryString(
  query: Readonly<Record<string, string | number | undefined>> | undefined,
): string {
  if (!query) return "";
  let out = "";
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value === undefined) continue;
    out += `${out ? "&" : "?"}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}
