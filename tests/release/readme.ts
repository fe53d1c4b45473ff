// The README's "In your own project, from npm" commands, as printed: the test installs and runs exactly
// these lines, so the README cannot drift from what works.

/** The commands of the first `sh` block under the heading `### In your own project, from npm`, comments dropped. */
export function npmLines(readme: string): string[] {
  const heading = readme.indexOf("### In your own project, from npm");
  if (heading < 0) throw new Error('README.md has no "### In your own project, from npm" section');
  const open = readme.indexOf("```sh\n", heading);
  const close = readme.indexOf("\n```", open + 1);
  if (open < 0 || close < 0) throw new Error("no sh block under README.md's npm section");
  return readme
    .slice(open + "```sh\n".length, close)
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** The `<script>` tags of a docs page's generated CDN block: `[{ tag, src, integrity }]`. */
export function cdnScripts(page: string): Array<{ tag: string; src: string; integrity: string }> {
  const start = page.indexOf("<!-- cdn:begin");
  const end = page.indexOf("<!-- cdn:end -->");
  if (start < 0 || end < start) throw new Error("the page has no CDN block");
  return [
    ...page
      .slice(start, end)
      .matchAll(/<script src="([^"]+)"\s+integrity="([^"]+)" crossorigin="anonymous"><\/script>/g),
  ].map((match) => ({ tag: match[0], src: match[1] as string, integrity: match[2] as string }));
}
