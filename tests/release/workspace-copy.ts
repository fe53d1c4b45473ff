// A temporary copy of the repository to release from, so that `pnpm release` (which versions, writes
// changelogs and commits) never touches the working tree: the files git would see (tracked and new, not
// ignored), the packages' dist/ as the workspace built them, and the installed dependencies by link (the
// root's node_modules is a link; each package's node_modules is copied as the links it is, which then
// point into the copy for workspace packages). The copy is a git repository of its own, one commit.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";

/** The published packages' directories under packages/. */
export const PUBLISHED = ["contract", "webhooks", "node", "mock-server", "browser", "react"] as const;

/** Git's identity for the copy's commits (the release commits there too). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Paykit release test",
  GIT_AUTHOR_EMAIL: "release-test@paykit.test",
  GIT_COMMITTER_NAME: "Paykit release test",
  GIT_COMMITTER_EMAIL: "release-test@paykit.test",
};

/** Copies the repository at `root` into `destination` (an empty directory) and commits it there. */
export function copyWorkspace(root: string, destination: string): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of new Set(listed.split("\0").filter(Boolean))) {
    const from = join(root, file);
    if (!existsSync(from) || statSync(from).isDirectory()) continue; // deleted, or a submodule
    const to = join(destination, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    chmodSync(to, statSync(from).mode);
  }
  symlinkSync(join(root, "node_modules"), join(destination, "node_modules"));
  for (const dir of PUBLISHED) {
    const from = join(root, "packages", dir);
    cpSync(join(from, "dist"), join(destination, "packages", dir, "dist"), { recursive: true });
    cpSync(join(from, "node_modules"), join(destination, "packages", dir, "node_modules"), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: destination, stdio: "pipe", env: { ...process.env, ...GIT_IDENTITY } });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "The working tree, for a release rehearsal");
}
