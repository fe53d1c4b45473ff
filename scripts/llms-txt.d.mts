/** A page's first `# ` heading and the first paragraph of prose after it, on one line. */
export function pageSummary(markdown: string): { title: string; summary: string };
/** The text of llms.txt for the repository at `root` (a directory path). */
export function llmsTxt(root: string): string;
/** The llms.txt of the published package in `packages/<dir>`, shipped in its tarball. */
export function packageLlmsTxt(root: string, dir: string): string;
/** The directories under packages/ of the published packages. */
export function publishedPackages(root: string): string[];
/** Writes llms.txt at the root of the repository at `root` and in each published package; answers the root's path. */
export function writeLlmsTxt(root: string): string;
