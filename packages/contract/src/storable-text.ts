// What a text field of a request may hold, decided once for the client, the mock in every store mode and
// any store behind them (docs/decisions/shared-sandbox-storable-text.md): any well-formed Unicode, but no
// lone UTF-16 surrogate (UTF-8, PostgreSQL's text and jsonb included, cannot encode one) and no NUL
// (PostgreSQL's text and jsonb refuse it). Kept free of zod so a page can check a form field with it.

/** What an `INVALID_DATA` detail says of a text field that is not storable. */
export const STORABLE_TEXT_MESSAGE = "must not contain a lone UTF-16 surrogate or a NUL character";

/**
 * The storable-text rule as a JSON Schema `pattern` (ECMA-262): any character but NUL, and a surrogate
 * only as one half of a pair. A validator that reads patterns with the `u` flag (Ajv does) sees a pair as
 * one code point, taken by the first branch, and a lone surrogate as a code point of its own, taken by
 * neither; one that reads code units takes a pair by the second branch. Both accept the same strings.
 * `^[^\u0000\uD800-\uDFFF]*$` would refuse every emoji where code units are read.
 */
export const STORABLE_TEXT_PATTERN = "^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$";

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// `isWellFormed` (ES2024, Node 20) is native and answers a one-byte string at once; older engines take the regex.
const isWellFormed: (value: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (value) => (value as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (value) => !LONE_SURROGATE.test(value);

/**
 * Whether a text value can be kept exactly as sent: well-formed UTF-16 (no lone surrogate) without a
 * NUL character. Every text field of every request must be.
 *
 * @example
 * ```ts
 * isStorableText("Zé 😀"); // true
 * isStorableText("\ud83d"); // false: half of an emoji
 * ```
 */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && isWellFormed(value);
}

/**
 * The paths (relative to `value`) of every string and object key inside a JSON value that is not
 * storable text: a key's path is its object's, the string's is its own. Iterative, and each node keeps
 * a link to its parent rather than a copy of its path, so neither depth nor size costs more than linear.
 */
export function unstorableTextPaths(value: unknown): { path: PropertyKey[]; key: boolean }[] {
  const found: { path: PropertyKey[]; key: boolean }[] = [];
  const stack: Node[] = [{ value, key: "", parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const current = node.value;
    if (typeof current === "string") {
      if (!isStorableText(current)) found.push({ path: pathOf(node), key: false });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: node });
    } else if (current !== null && typeof current === "object") {
      const keys = Object.keys(current);
      if (keys.some((key) => !isStorableText(key))) found.push({ path: pathOf(node), key: true });
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (isStorableText(key))
          stack.push({ value: (current as Record<string, unknown>)[key], key, parent: node });
      }
    }
  }
  return found;
}

interface Node {
  value: unknown;
  key: PropertyKey;
  parent: Node | null;
}

function pathOf(node: Node): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Node | null = node; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}
