// Finds every fenced code block the docs test runs: ts, tsx, js, mjs and html blocks in docs/*.md,
// README.md, packages/*/README.md and examples/*/README.md. A block's info string may carry attributes
// after the language: `context=NAME` (a harness in contexts/ provides the block's free names),
// `file=NAME.ts` (the block is a module later blocks of the same page import as ./NAME.js), and
// `norun="why"` (type-checked but not executed; the reason is printed).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The languages whose blocks are checked and run. */
export const RUN_LANGS = ["ts", "tsx", "js", "mjs", "html"] as const;
/** One of {@link RUN_LANGS}. */
export type RunLang = (typeof RUN_LANGS)[number];

/** A fenced block found in a page. */
export interface DocBlock {
  /** Page path relative to the repository root, e.g. `docs/webhooks.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: RunLang;
  /** Attributes of the info string (`context`, `file`, `norun`). */
  attrs: Record<string, string>;
  code: string;
}

/** The pages the docs test reads, relative to `root`. */
export function docPages(root: string): string[] {
  const pages: string[] = [];
  const add = (path: string) => {
    if (existsSync(join(root, path))) pages.push(path);
  };
  for (const name of readdirSync(join(root, "docs")).sort()) if (name.endsWith(".md")) add(`docs/${name}`);
  add("README.md");
  for (const group of ["packages", "examples"]) {
    for (const name of readdirSync(join(root, group)).sort()) add(`${group}/${name}/README.md`);
  }
  add("examples/README.md");
  return pages;
}

/** Parses `ts context=x norun="a reason"` into the language and its attributes. */
export function parseInfo(info: string): { lang: string; attrs: Record<string, string> } {
  const [lang = "", ...rest] = info.trim().split(/\s+/);
  const attrs: Record<string, string> = {};
  const text = info.trim().slice(lang.length);
  for (const match of text.matchAll(/([\w-]+)=(?:"([^"]*)"|(\S+))/g)) {
    attrs[match[1] as string] = match[2] ?? match[3] ?? "";
  }
  if (rest.length > 0 && Object.keys(attrs).length === 0) {
    throw new Error(`unreadable info string "${info}": attributes are key=value or key="a value"`);
  }
  return { lang, attrs };
}

/** Every runnable block of one page, in order. */
export function extractBlocks(root: string, page: string): DocBlock[] {
  const lines = readFileSync(join(root, page), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    const { lang, attrs } = parseInfo(info);
    if ((RUN_LANGS as readonly string[]).includes(lang)) {
      blocks.push({ page, line: i + 1, lang: lang as RunLang, attrs, code: `${body.join("\n")}\n` });
    }
    i = j;
  }
  return blocks;
}

/** Every runnable block of every page. */
export function allBlocks(root: string): DocBlock[] {
  return docPages(root).flatMap((page) => extractBlocks(root, page));
}

/** `docs/webhooks.md:42`, for messages. */
export function where(root: string, block: DocBlock): string {
  return `${relative(root, join(root, block.page))}:${block.line}`;
}
