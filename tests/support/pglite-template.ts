// One PGlite data directory made by PGlite's initdb for the whole test run, which the test processes
// copy instead of running initdb again. Its initdb runs in WASM, about 2.5 s of a core (and up to 20 s
// on a loaded machine) for each new data directory; a copy of the made directory opens in about 0.5 s.
// It runs in a process of its own (a process group, killed on any exit), from the project's directory
// so that the project's own @electric-sql/pglite makes it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { removeDir, removeOnExit, runGroup } from "../../scripts/processes.mjs";
import type { TestService } from "../../scripts/services.mjs";

/**
 * Makes the template: an empty PGlite data directory, just initialised (no table of ours). Resolves
 * `{ url, stop }` with the directory as a `file:` URL; `stop` removes it.
 */
export async function makePgliteTemplate(projectDir: string): Promise<TestService> {
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), "paykit-pglite-template-")));
  const data = join(dir, "data");
  const script = [
    'const { PGlite } = await import("@electric-sql/pglite");',
    `const db = await PGlite.create(${JSON.stringify(data)});`,
    "await db.close();",
  ].join("\n");
  const made = await runGroup(process.execPath, ["--input-type=module", "--eval", script], {
    cwd: projectDir,
    timeoutMs: 300_000,
  });
  if (made.code !== 0) {
    removeDir(dir);
    throw new Error(
      `PGlite's initdb ${made.timedOut ? "did not end in 300 s" : "failed"}:\n${made.stderr.slice(-2000)}`,
    );
  }
  return { url: pathToFileURL(data).href, port: 0, stop: async () => removeDir(dir) };
}
