// llms.txt at the repository root is generated (scripts/llms-txt.mjs, run by `pnpm run docs`): the
// committed file must be what the generator writes from today's pages, and every link must lead somewhere.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { llmsTxt, pageSummary } from "../../../scripts/llms-txt.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));

describe("llms.txt", () => {
  it("is what `pnpm run docs` writes from the pages as they are (run `node scripts/llms-txt.mjs` after changing a page)", () => {
    expect(readFileSync(join(root, "llms.txt"), "utf8")).toBe(llmsTxt(root));
  });

  it("links to files of the repository, and to the reference `pnpm run docs` generates", () => {
    const links = [...llmsTxt(root).matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1] as string);
    expect(links).toEqual(
      expect.arrayContaining(["docs/testing.md", "docs/api/index.html", "docs/openapi.json"]),
    );
    const missing = links.filter((path) => !path.startsWith("docs/api/") && !existsSync(join(root, path)));
    expect(missing).toEqual([]);
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
