#!/usr/bin/env node
// `pnpm release`: versions, builds, checks and publishes the six packages (CONTRIBUTING.md, "Releasing";
// docs/decisions/first-release.md). In order:
//   1. the pending changesets give every API change since the last release the right bump
//      (scripts/api-semver.mjs), before they are used up;
//   2. `changeset version`: each package's CHANGELOG.md from its changesets, versions bumped, internal ranges
//      updated; then what follows a version: jsr.json, @paykit/node's VERSION, and the API reports kept
//      as the released ones (etc/released/, the next release's baseline);
//   3. the build (turbo);
//   4. the package checks (publint, attw, the API reports against the build: `package:check`);
//   5. the CDN block of the docs (scripts/cdn.mjs --write: SRI hashes of the built `<script>` files);
//   6. each tarball packed once, its size printed and its file list checked;
//   7. a release commit (in a git repository), `changeset publish` to the registry in `npm_config_registry`
//      (the public one by default; tagged `@paykit/node@1.0.0`, …), and JSR (`deno publish`).
// Provenance: on the public registry from CI, npm signs each tarball with the CI's identity
// (`npm_config_provenance=true`); CI without an identity is refused. A custom registry gets none (and JSR a
// dry run: a local registry is a rehearsal).
// Options:
//   --reuse-build   dist/ was built from this tree before the version step (tests/release copies the
//                   workspace's build): rebuild only the JavaScript of the packages whose sources the version
//                   step changed. That is @paykit/node's src/version.ts, whose declaration (`VERSION: string`)
//                   does not change, so the declaration files are kept (tsup --no-dts --no-clean).
//   --skip-checks   skip step 4: only for a tree whose identical files passed `npm test`'s package:check
//                   in the same run (tests/release)
//   --allow-dirty   release from a git tree with uncommitted changes (no release commit is made)
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkChangesetKinds, PUBLISHED, releasedFolder } from "./api-semver.mjs";
import { writeRecord } from "./cdn.mjs";
import { unpublishable } from "./tarball-files.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
const known = ["--reuse-build", "--skip-checks", "--allow-dirty"];
for (const arg of args) if (!known.includes(arg)) fail(`unknown option ${arg} (${known.join(", ")})`);

// What the release reads from its environment (it runs outside turbo, so none of it is a task's input):
// the registry, CI's OIDC identity (GitHub Actions with `id-token: write`, or GitLab's SIGSTORE_ID_TOKEN),
// and where Deno is.
const { npm_config_registry, ACTIONS_ID_TOKEN_REQUEST_URL, SIGSTORE_ID_TOKEN, CI, DENO } = process.env;
const PUBLIC = "https://registry.npmjs.org/";
const registry = npm_config_registry || PUBLIC;
const isPublic = /^https:\/\/registry\.npmjs\.org\/?$/.test(registry);
const packageDir = (dir) => join(root, "packages", dir);
const manifest = (dir) => JSON.parse(readFileSync(join(packageDir(dir), "package.json"), "utf8"));

function fail(message) {
  console.error(`\npnpm release: ${message}`);
  process.exit(1);
}

const started = Date.now();
function step(title) {
  console.log(`\n== ${title} (at ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** Runs a command in the repository with its output shown; stops the release when it fails. */
function run(command, commandArgs, env = {}) {
  console.log(`$ ${[command, ...commandArgs].join(" ")}`);
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  if (result.error) fail(`${command}: ${result.error.message}`);
  if (result.status !== 0) fail(`${command} ${commandArgs[0] ?? ""} failed (exit ${result.status})`);
}

/** A command's standard output, or null when it fails. */
function output(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, encoding: "utf8" });
  return result.status === 0 ? result.stdout : null;
}

const inGit = output("git", ["rev-parse", "--is-inside-work-tree"])?.trim() === "true";

// --- 0. Where to, and with what identity ---------------------------------------------------------------
// npm makes provenance only where CI offers an OIDC identity.
const identity = Boolean(ACTIONS_ID_TOKEN_REQUEST_URL || SIGSTORE_ID_TOKEN);
const provenance = isPublic && identity;
if (isPublic && CI && !identity) {
  fail(
    "publishing to the public registry from CI needs an OIDC identity for provenance (GitHub Actions: `permissions: id-token: write`)",
  );
}
step(
  `Releasing to ${registry}${provenance ? " with provenance" : isPublic ? " (no CI identity: no provenance)" : ""}`,
);
if (inGit && !args.has("--allow-dirty") && output("git", ["status", "--porcelain"])?.trim()) {
  fail("the working tree has uncommitted changes: commit or stash them first (or --allow-dirty)");
}
// JSR comes last, after npm: a missing deno must stop the release before anything is published.
const deno = DENO ?? "deno";
if (output(deno, ["--version"]) === null) {
  fail(`JSR needs Deno: put deno on PATH or name it in DENO (now "${deno}")`);
}

// --- 1. The right kind of changeset for every API change ------------------------------------------------
step("API changes since the last release against the pending changesets");
const dirs = PUBLISHED.map(packageDir);
const kindProblems = await checkChangesetKinds(dirs, root);
if (kindProblems.length > 0) fail(`\n${kindProblems.join("\n\n")}`);
console.log("every API change has a changeset of its kind");

// --- 2. Versions -----------------------------------------------------------------------------------------
const before = Object.fromEntries(PUBLISHED.map((dir) => [dir, manifest(dir).version]));
const pending = readdirSync(join(root, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
const changedSources = new Set();
if (pending.length === 0) {
  step("No pending changesets: publishing the versions in package.json that the registry does not have");
} else {
  step(`changeset version (${pending.length} changesets)`);
  run("pnpm", ["exec", "changeset", "version"]);
  for (const dir of PUBLISHED) afterVersion(dir);
}

/** What follows a new version of a package: its jsr.json, @paykit/node's VERSION, the released API reports. */
function afterVersion(dir) {
  const { name, version } = manifest(dir);
  if (version === before[dir]) return;
  console.log(`${name}: ${before[dir]} -> ${version}`);
  const jsr = join(packageDir(dir), "jsr.json");
  if (existsSync(jsr)) {
    // the version alone, so that the file keeps the formatting Biome gives it
    const text = readFileSync(jsr, "utf8");
    writeFileSync(jsr, text.replace(/"version": "[^"]*"/, `"version": "${version}"`));
  }
  const versionFile = join(packageDir(dir), "src/version.ts");
  if (existsSync(versionFile)) {
    const text = readFileSync(versionFile, "utf8");
    const next = text.replace(/VERSION: string = "[^"]*"/, `VERSION: string = "${version}"`);
    if (next === text && !text.includes(`"${version}"`)) fail(`${versionFile}: no VERSION to update`);
    writeFileSync(versionFile, next);
    changedSources.add(dir);
  }
  const released = releasedFolder(packageDir(dir));
  const reports = join(packageDir(dir), "etc");
  rmSync(released, { recursive: true, force: true });
  mkdirSync(released, { recursive: true });
  for (const file of readdirSync(reports).filter((name) => name.endsWith(".api.md"))) {
    copyFileSync(join(reports, file), join(released, file));
  }
}

// --- 3. Build --------------------------------------------------------------------------------------------
const names = PUBLISHED.map((dir) => manifest(dir).name);
if (args.has("--reuse-build")) {
  const rebuild = [...changedSources];
  step(
    `Build: reusing dist/, rebuilding the JavaScript of ${rebuild.length > 0 ? rebuild.join(", ") : "nothing"}`,
  );
  for (const dir of rebuild)
    run("pnpm", ["--filter", manifest(dir).name, "exec", "tsup", "--no-dts", "--no-clean"]);
} else {
  step("Build");
  run("pnpm", [
    "exec",
    "turbo",
    "run",
    "build",
    ...names.map((name) => `--filter=${name}`),
    "--output-logs=errors-only",
  ]);
}

// --- 4. Package checks -----------------------------------------------------------------------------------
if (args.has("--skip-checks")) {
  step("Package checks: skipped (--skip-checks)");
} else {
  step("Package checks: publint, attw, API reports");
  run("pnpm", [
    "-r",
    ...names.flatMap((name) => ["--filter", name]),
    "--workspace-concurrency=2",
    "run",
    "package:check",
  ]);
}

// --- 5. CDN ----------------------------------------------------------------------------------------------
step("CDN block of the docs");
const record = writeRecord(root);
for (const [file, hash] of Object.entries(record.files))
  console.log(`@paykit/browser@${record.version}/${file} ${hash}`);

// --- 6. Tarballs -----------------------------------------------------------------------------------------
step("Tarballs");
// One pnpm for the six (it writes the `workspace:` ranges as versions, as publishing does).
const packDir = mkdtempSync(join(tmpdir(), "paykit-release-pack-"));
let packed;
try {
  const json = output("pnpm", [
    "-r",
    ...names.flatMap((name) => ["--filter", name]),
    "pack",
    "--pack-destination",
    packDir,
    "--json",
  ]);
  if (json === null) fail("pnpm pack failed");
  packed = JSON.parse(json).map((tarball) => ({
    name: tarball.name,
    version: tarball.version,
    bytes: statSync(tarball.filename).size,
    paths: tarball.files.map((file) => file.path),
  }));
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
for (const { name, version, bytes, paths } of packed) {
  console.log(
    `${`${name}@${version}`.padEnd(30)} ${bytes.toLocaleString("en").padStart(11)} B  ${String(paths.length).padStart(4)} files`,
  );
}
const strays = packed.flatMap(({ name, paths }) => unpublishable(paths).map((path) => `${name}: ${path}`));
if (strays.length > 0) fail(`files that are not to be published:\n${strays.join("\n")}`);

// --- 7. Commit, publish ----------------------------------------------------------------------------------
const tags = inGit && !args.has("--allow-dirty");
if (tags && output("git", ["status", "--porcelain"])?.trim()) {
  step("Release commit");
  const line = packed.map(({ name, version }) => `${name}@${version}`).join(", ");
  run("git", ["add", "-A"]);
  run("git", ["commit", "-q", "-m", `Release ${line}`]);
}
step(`changeset publish to ${registry}`);
run("pnpm", ["exec", "changeset", "publish", ...(tags ? [] : ["--no-git-tag"])], {
  npm_config_registry: registry,
  ...(provenance ? { npm_config_provenance: "true" } : {}),
});

step(isPublic ? "JSR: deno publish" : "JSR: deno publish --dry-run (a custom npm registry is a rehearsal)");
run(deno, ["publish", ...(isPublic ? [] : ["--dry-run"]), ...(tags ? [] : ["--allow-dirty"])], {
  DENO_NO_UPDATE_CHECK: "1",
});

step("Released");
for (const { name, version } of packed) console.log(`${name}@${version}`);
if (tags) console.log("Push the release commit and its tags: git push --follow-tags");
