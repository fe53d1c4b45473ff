#!/usr/bin/env node
// Is every change to a package's public API released as what it is? The API reports as of the last
// release (`packages/<pkg>/etc/released/*.api.md`, written by `pnpm release`) are compared with the
// committed reports (`etc/*.api.md`, which scripts/api-report.mjs holds to the build): a line the
// released report has and the current one lacks is a removal or a changed signature, and asks for a major;
// lines only added ask for a minor. The pending changesets must give the package at least that bump
// (`changeset version`'s release plan, so a fixed group's bump counts for all its packages).
// docs/decisions/api-reports.md has the rules and their limits.
// Usage: node scripts/api-semver.mjs [package dir…]  (default: every published package; from a package's
// directory: that package)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The directories under packages/ of the published packages. */
export const PUBLISHED = ["contract", "webhooks", "node", "mock-server", "browser", "react"];

const ORDER = ["none", "patch", "minor", "major"];
/** Whether bump `a` is at least bump `b` (none < patch < minor < major). */
export const atLeast = (a, b) => ORDER.indexOf(a) >= ORDER.indexOf(b);

// A top-level declaration of a report starts at the line's first column: `export declare function f(…`,
// `export interface Options {`, `export { Address }`, `export namespace …`.
const DECLARATION =
  /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:const|let|var|function|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/;

/**
 * The API lines of a report, each keyed by its top-level declaration (`Name\0line`, trimmed): the lines of
 * the report's TypeScript block, without blank lines, comments (release tags, "(undocumented)") and
 * imports (an import changes only when a use of it changes, which is reported where it is used).
 */
export function apiLines(report) {
  const fence = report.indexOf("```ts");
  const body = fence < 0 ? report : report.slice(fence + 5, report.lastIndexOf("```"));
  const lines = [];
  let owner = "";
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("//") || line.startsWith("import ")) continue;
    if (raw === raw.trimStart() && !line.startsWith("}") && !line.startsWith(")")) {
      owner = DECLARATION.exec(line)?.[1] ?? (line.startsWith("export {") ? line : line);
    }
    lines.push(`${owner}\0${line}`);
  }
  return lines;
}

/**
 * What a change from the report `before` to `after` is: `{ bump, removed, added }`. `bump` is `major`
 * when a line went (a declaration or member removed, or a signature changed), `minor` when lines only
 * came, `none` otherwise. `before` null is an entry point that did not exist (all added); `after` null
 * one that no longer exists (all removed).
 */
export function classify(before, after) {
  const count = (lines) => {
    const map = new Map();
    for (const line of lines) map.set(line, (map.get(line) ?? 0) + 1);
    return map;
  };
  const a = count(before === null ? [] : apiLines(before));
  const b = count(after === null ? [] : apiLines(after));
  const show = (key) => key.slice(key.indexOf("\0") + 1);
  const removed = [];
  const added = [];
  for (const [line, n] of a) if (n > (b.get(line) ?? 0)) removed.push(show(line));
  for (const [line, n] of b) if (n > (a.get(line) ?? 0)) added.push(show(line));
  const bump = removed.length > 0 ? "major" : added.length > 0 ? "minor" : "none";
  return { bump, removed, added };
}

/** The folder where `pnpm release` keeps the reports of the released version. */
export const releasedFolder = (packageDir) => join(packageDir, "etc", "released");

const reportsIn = (folder) =>
  existsSync(folder) ? readdirSync(folder).filter((file) => file.endsWith(".api.md")) : [];

/**
 * The bump the API changes of a package since its last release ask for: `{ name, released, bump,
 * changes: [{ file, bump, removed, added }] }`. `released` is false for a package never released (no
 * `etc/released/`): its first release has nothing to keep compatible with, and asks for nothing.
 */
export function requiredBump(packageDir) {
  const { name } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const releasedDir = releasedFolder(packageDir);
  if (!existsSync(releasedDir)) return { name, released: false, bump: "none", changes: [] };
  const currentDir = join(packageDir, "etc");
  const files = new Set([...reportsIn(releasedDir), ...reportsIn(currentDir)]);
  const read = (dir, file) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : null);
  const changes = [];
  let bump = "none";
  for (const file of [...files].sort()) {
    const change = classify(read(releasedDir, file), read(currentDir, file));
    if (change.bump === "none") continue;
    changes.push({ file: `etc/${file}`, ...change });
    if (!atLeast(bump, change.bump)) bump = change.bump;
  }
  return { name, released: true, bump, changes };
}

/** The bump `changeset version` would give each package from the pending changesets: Map name → type. */
export async function plannedBumps(cwd = root) {
  const { default: getReleasePlan } = await import("@changesets/get-release-plan");
  const plan = await getReleasePlan(cwd);
  const bumps = new Map(plan.releases.map((release) => [release.name, release.type]));
  const changesets = new Map();
  for (const changeset of plan.changesets) {
    for (const release of changeset.releases) {
      changesets.set(release.name, [
        ...(changesets.get(release.name) ?? []),
        `${changeset.id} (${release.type})`,
      ]);
    }
  }
  return { bumps, changesets };
}

/** `+ line` / `- line` samples of a change, at most `max` of them. */
function sample({ removed, added }, max = 6) {
  const lines = [...removed.map((line) => `      - ${line}`), ...added.map((line) => `      + ${line}`)];
  return lines.slice(0, max).join("\n") + (lines.length > max ? `\n      … ${lines.length - max} more` : "");
}

/**
 * Checks that the pending changesets give every package in `packageDirs` at least the bump its API
 * changes since the last release ask for; answers the problems (empty when all is well).
 */
export async function checkChangesetKinds(packageDirs, cwd = root) {
  const required = packageDirs.map(requiredBump).filter((r) => r.released && r.bump !== "none");
  if (required.length === 0) return [];
  const { bumps, changesets } = await plannedBumps(cwd);
  const problems = [];
  for (const { name, bump, changes } of required) {
    const planned = bumps.get(name) ?? "none";
    if (atLeast(planned, bump)) continue;
    const what = bump === "major" ? "a removal or a changed signature" : "an addition";
    const pending = changesets.get(name);
    problems.push(
      `${name}: its public API changed since the last release with ${what}, which needs a ${bump}` +
        ` changeset; the pending changesets make it ${planned === "none" ? "no release" : `a ${planned}`}` +
        `${pending ? ` (${pending.join(", ")})` : ""}.\n` +
        changes.map((change) => `    ${change.file} (${change.bump}):\n${sample(change)}`).join("\n") +
        `\n  Add one: \`pnpm changeset\` and choose ${bump} for ${name}, or a file .changeset/<name>.md with` +
        ` "${name}": ${bump} in its front matter (CONTRIBUTING.md, "Changesets").`,
    );
  }
  return problems;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const named = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
  const cwd = process.cwd();
  const inPackage = dirname(cwd) === join(root, "packages") && existsSync(join(cwd, "package.json"));
  const packageDirs =
    named.length > 0
      ? named.map((dir) => resolve(dir))
      : inPackage
        ? [cwd]
        : PUBLISHED.map((dir) => join(root, "packages", dir));
  const problems = await checkChangesetKinds(packageDirs);
  if (problems.length > 0) {
    console.error(problems.join("\n\n"));
    process.exit(1);
  }
  const names = packageDirs.map((dir) => relative(root, dir)).join(", ");
  console.log(`Changesets match the API changes since the last release: ${names}`);
}
