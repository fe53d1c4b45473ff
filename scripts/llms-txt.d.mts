/** A page's first `# ` heading and the first paragraph of prose after it, on one line. */
export function pageSummary(markdown: string): { title: string; summary: string };
/** The text of llms.txt for the repository at `root` (a directory path). */
export function llmsTxt(root: string): string;
/** Writes llms.txt at the root of the repository at `root`; answers its path. */
export function writeLlmsTxt(root: string): string;
