/**
 * Joins sentences with one space, each ending in exactly one full stop (a `?` or `!` of its own is
 * kept); empty parts are left out. Every error message is built with it, so none can end in "..".
 */
export function sentences(...parts: ReadonlyArray<string | undefined>): string {
  let out = "";
  for (const part of parts) {
    const text = part === undefined ? "" : withoutStop(part);
    if (text === "") continue;
    out += `${out === "" ? "" : " "}${text}${/[?!]$/.test(text) ? "" : "."}`;
  }
  return out;
}

/** A sentence without its closing full stops and spaces, ready to be continued. */
export function withoutStop(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === "." || /\s/.test(text[end - 1] as string))) end--;
  return text.slice(0, end).trimStart();
}
