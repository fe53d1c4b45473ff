// llms.txt at the repository root, and one in each published package, are generated
// (scripts/llms-txt.mjs, run by `pnpm run docs`): the committed files must be what the generator writes
// from today's pages, and every link must lead to a file a fresh clone has (or, in a package's, to a file
// of its tarball or of the repository).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { llmsTxt, packageLlmsTxt, pageSummary, publishedPackages } from "../../../scripts/llms-txt.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const linksOf = (text: string) => [...text.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1] as string);
// What a fresh clone holds: the tracked files, and the new ones not ignored (tracked once committed);
// never what a build or `pnpm run docs` writes (dist/, docs/api/: ignored).
const cloned = new Set(
  execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  }).split("\n"),
);
const REPOSITORY = "https://github.com/paykit/paykit/blob/main/";

describe("llms.txt", () => {
  it("is what `pnpm run docs` writes from the pages as they are (run `node scripts/llms-txt.mjs` after changing a page)", () => {
    expect(readFileSync(join(root, "llms.txt"), "utf8")).toBe(llmsTxt(root));
  });

  it("links only to files a fresh clone has (nothing `pnpm run docs` or a build writes)", () => {
    const links = linksOf(llmsTxt(root));
    expect(links).toEqual(
      expect.arrayContaining(["docs/testing.md", "docs/checkout.md", "docs/openapi.json"]),
    );
    expect(links.filter((path) => !cloned.has(path))).toEqual([]);
  });

  it.each(publishedPackages(root))(
    "packages/%s/llms.txt is generated, shipped, and its links lead somewhere",
    (dir) => {
      const text = packageLlmsTxt(root, dir);
      expect(readFileSync(join(root, "packages", dir, "llms.txt"), "utf8")).toBe(text);
      const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
      expect(manifest.files).toContain("llms.txt");
      const links = linksOf(text);
      // in the tarball: the package's own README, beside llms.txt
      expect(links.filter((link) => !link.startsWith("https://"))).toEqual(["README.md"]);
      // everything else: files of the repository, at their address on the forge
      const elsewhere = links.filter((link) => link.startsWith("https://"));
      expect(elsewhere.length).toBeGreaterThan(10);
      expect(
        elsewhere.filter(
          (link) => !link.startsWith(REPOSITORY) || !cloned.has(link.slice(REPOSITORY.length)),
        ),
      ).toEqual([]);
    },
  );

  it("names the browser package's payment screen, not only its 3DS flow", () => {
    const line = llmsTxt(root)
      .split("\n")
      .find((l) => l.startsWith("- [@paykit/browser]"));
    expect(line).toMatch(/mountPayment/);
    expect(line).toMatch(/<paykit-payment>/);
    expect(line).toMatch(/handlePendingThreeDS/);
    expect(existsSync(join(root, "packages/browser/README.md"))).toBe(true);
  });

  it.each([
    ["# Title\n\nFirst line\nsecond line.\n\nLater.", { title: "Title", summary: "First line second line." }],
    [
      "# T\n\n```ts\nconst x = 1;\n```\n\n| a |\n|---|\n\nProse at last:",
      { title: "T", summary: "Prose at last." },
    ],
    [
      `# Long\n\n${"A sentence of words. ".repeat(20)}`,
      { title: "Long", summary: "A sentence of words. ".repeat(13).trim() },
    ],
  ])("summarises a page by its first heading and its first paragraph of prose (%#)", (markdown, expected) => {
    expect(pageSummary(markdown)).toEqual(expected);
  });
});
