// A build of the mock from an earlier commit, for the benches that compare this build with it in the
// same run (bench/run.mjs). The commit's files come from `git archive` into a folder of the system's
// temporary directory named by the commit (kept, so a second run reuses it), where pnpm installs what
// the mock needs (from its store when it can) and builds the mock and the packages it depends on.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * The dist entry (`packages/mock-server/dist/index.js`) of the mock built from `ref`; throws with the
 * reason when it cannot be built (a shallow clone without the commit, no network and no cached package).
 */
export function baselineBuild(ref) {
  const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
  const sha = git("rev-parse", "--verify", `${ref}^{commit}`);
  const dir = join(tmpdir(), `paykit-mock-baseline-${sha.slice(0, 12)}`);
  const entry = join(dir, "packages", "mock-server", "dist", "index.js");
  if (existsSync(entry)) return { sha, entry };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C "${dir}"`], { cwd: root, stdio: "inherit" });
  const pnpm = (...args) => execFileSync("pnpm", args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  pnpm(
    "install",
    "--frozen-lockfile",
    "--prefer-offline",
    "--ignore-scripts",
    "--filter",
    "@paykit/mock-server...",
  );
  pnpm("--filter", "@paykit/mock-server...", "run", "build");
  if (!existsSync(entry)) throw new Error(`the build of ${sha} made no ${entry}`);
  return { sha, entry };
}
