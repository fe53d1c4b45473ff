// docs/decisions/ holds one file per decision, and code, tests and docs cite a decision by its file
// (docs/decisions/README.md says how to add one). This keeps every citation pointing at a file that exists,
// every file listed in the index, and every link between the decisions resolving.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const folder = "docs/decisions";

/** The repository's tracked files, as `git ls-files` names them, with their text (binary files left out). */
function trackedTexts(): { path: string; text: string }[] {
  const paths = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\0")
    .filter((path) => path !== "" && existsSync(join(root, path)));
  return paths.flatMap((path) => {
    const text = readFileSync(join(root, path), "utf8");
    return text.includes("\0") ? [] : [{ path, text }];
  });
}

/** `file:line` of every match of `pattern` (global) in the files, with the matched text. */
function occurrences(
  files: { path: string; text: string }[],
  pattern: RegExp,
): { where: string; found: string }[] {
  return files.flatMap(({ path, text }) =>
    [...text.matchAll(pattern)].map((match) => ({
      where: `${path}:${text.slice(0, match.index).split("\n").length}`,
      found: match[0],
    })),
  );
}

/** Relative targets of the Markdown links of a page (no scheme, no bare anchor), without their anchor. */
function relativeLinks(markdown: string): string[] {
  // What a code block or span shows (`[<title>](<file>.md)`) is an example, not a link.
  const prose = markdown
    .replace(/^\s*(```|~~~)[^\n]*\n[\s\S]*?^\s*\1[^\n]*$/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.replace(/#.*$/, ""));
}

/** What is wrong with one decision file: not in the index, no title or status line, a link that leads nowhere. */
function decisionFileProblems(path: string, files: readonly string[], index: string, text: string): string[] {
  const name = relative(folder, path);
  const problems: string[] = [];
  if (!index.includes(`](${name})`)) problems.push(`${path} has no row in ${folder}/README.md`);
  const [title, ...rest] = text.split("\n");
  if (!title?.startsWith("# ")) problems.push(`${path} does not start with "# <Title>"`);
  const status = rest.find((line) => line.trim() !== "");
  if (!status?.startsWith("Status: ")) problems.push(`${path}: the line after the title is not "Status: …"`);
  for (const target of relativeLinks(text)) {
    const resolved = join(dirname(path), target);
    if (!files.includes(resolved) && !existsSync(join(root, resolved)))
      problems.push(`${path} links to ${target}, which does not exist`);
  }
  return problems;
}

describe("docs/decisions: one file per decision, cited by path", () => {
  const files = trackedTexts();
  const paths = files.map((file) => file.path);

  it("every docs/decisions/<file>.md cited anywhere in the repository exists", () => {
    const cited = occurrences(files, /docs\/decisions\/[A-Za-z0-9._-]+\.md/g);
    expect(cited.length).toBeGreaterThan(100);
    const missing = cited.filter(({ found }) => !existsSync(join(root, found)));
    expect(missing, "cite an existing file of docs/decisions/ (its README lists them)").toEqual([]);
  });

  it("no file cites the old single page any more (CHANGELOGs keep their history)", () => {
    // The pattern is written so that this file does not match itself.
    const oldPage = new RegExp(["(^|[^A-Za-z0-9_-])decisions", "md\\b"].join("\\."), "g");
    const stale = occurrences(
      files.filter(({ path }) => !/(^|\/)CHANGELOG\.md$/.test(path)),
      oldPage,
    );
    expect(stale, "cite docs/decisions/<file>.md instead").toEqual([]);
  });

  it("every relative link to a decision, from any Markdown page, resolves", () => {
    const broken = files
      .filter(({ path }) => path.endsWith(".md"))
      .flatMap(({ path, text }) =>
        relativeLinks(text)
          .map((target) => ({ path, target, resolved: join(dirname(path), target) }))
          .filter(({ resolved }) => resolved.startsWith(`${folder}/`) && !existsSync(join(root, resolved)))
          .map(({ path: from, target }) => `${from} → ${target}`),
      );
    expect(broken).toEqual([]);
  });

  it("every file of docs/decisions/ is in its index, has a title and a status, and its links resolve", () => {
    const index = readFileSync(join(root, folder, "README.md"), "utf8");
    const decisions = readdirSync(join(root, folder)).filter(
      (name) => name.endsWith(".md") && name !== "README.md",
    );
    expect(decisions.length).toBeGreaterThan(100);
    const problems = decisions.flatMap((name) =>
      decisionFileProblems(`${folder}/${name}`, paths, index, readFileSync(join(root, folder, name), "utf8")),
    );
    const indexLinks = relativeLinks(index).filter((target) => !existsSync(join(root, folder, target)));
    expect([
      ...problems,
      ...indexLinks.map((target) => `${folder}/README.md links to ${target}, which does not exist`),
    ]).toEqual([]);
  });
});
